# SPDX-License-Identifier: GPL-2.0
#
# mmap3: the module (built by Kbuild, see Kbuild), the mmap3 tool and the
# selftests.
#
#   make                 module for the running kernel (or KDIR=...), tool
#   make module KDIR=/lib/modules/VERSION/build
#   make userspace       the mmap3 tool
#   make selftests       the kselftest programs
#   make demo            boot a matrix kernel, show perf report without and
#                        with mmap3 (demo/run; DEMO_KERNEL=5.10|6.1|6.12|7.x)
#   make check           every test: host tests, style checks, and the
#                        selftests inside every matrix kernel (tests/check)
#   make fuzz            every fuzz target, each for FUZZ_SECONDS (default 60)
#                        in turn (tests/fuzz/run), the ioctl fuzzer in the
#                        debug kernel
#   make stress          the stress test in every kernel (KERNEL=NAME for
#                        one) for DURATION seconds (default 600), then the
#                        test suites other people wrote, longer than make
#                        check runs them (tests/suites; SUITES=no: not)
#   make bench           every benchmark, into bench/RESULTS.md (bench/run;
#                        BENCH_ARGS=--quick for a short run)
#   make install         the tool and its manual, mmap3(1) and mmap3-CMD(1), under
#                        $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make uninstall
#   make dkms-install    register with DKMS, build and install for the
#                        running kernel
#   make dkms-remove
#   make deb             the Debian packages mmap3 and mmap3-dkms, in
#                        .cache/deb (DEB_DIR=...), checked by lintian

KDIR ?= /lib/modules/$(shell uname -r)/build
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/mmap3-$(VERSION)
# What DKMS needs to build the module.
MODULE_SOURCES := Kbuild Makefile dkms.conf module include lib

all: module userspace

module:
	@test -f $(KDIR)/Makefile || { echo "no kernel build tree in $(KDIR):" \
		"install linux-headers-$$(uname -r) or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests

check:
	tests/check $(CHECK_ARGS)

FUZZ_SECONDS ?= 60
fuzz:
	tests/fuzz/run --seconds $(FUZZ_SECONDS)

DURATION ?= 600
stress:
	tests/stress $(if $(KERNEL),--kernels "$(KERNEL)") --seconds $(DURATION) \
		$(if $(filter no,$(SUITES)),--no-suites)

DEMO_KERNEL ?= 6.1
bench:
	bench/run $(BENCH_ARGS)

demo:
	@demo/run $(DEMO_KERNEL)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
UNITS := $(wildcard userspace/systemd/*.service)
# mmap3(1) and a page per command, mmap3-record(1)..., as perf has them.
MANPAGES := $(wildcard docs/mmap3*.1)

install: userspace
	install -D -m 0755 userspace/mmap3 $(DESTDIR)$(BINDIR)/mmap3
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -D -m 0644 userspace/mmap3.bash-completion \
		$(DESTDIR)$(COMPLETIONDIR)/mmap3
	install -d $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed 's|/usr/bin/mmap3|$(BINDIR)/mmap3|' $$u >$(DESTDIR)$(UNITDIR)/$${u##*/} && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$${u##*/} || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mmap3 $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES))) \
		$(DESTDIR)$(COMPLETIONDIR)/mmap3 $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(UNITS)))

dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(MODULE_SOURCES) $(DKMS_SRC)/
	dkms add -m mmap3 -v $(VERSION)
	dkms build -m mmap3 -v $(VERSION)
	dkms install -m mmap3 -v $(VERSION)

dkms-remove:
	dkms remove -m mmap3/$(VERSION) --all
	rm -rf $(DKMS_SRC)

# The packages, in DEB_DIR: debian/make-deb builds them from a copy of
# the tree (nothing lands in the checkout) and runs lintian.
DEB_DIR ?= $(CURDIR)/.cache/deb
deb:
	@debian/make-deb $(DEB_DIR)

print-module-sources:
	@echo $(MODULE_SOURCES)

clean:
	@if test -f $(KDIR)/Makefile; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean

.PHONY: all module userspace selftests check fuzz stress bench demo install uninstall dkms-install dkms-remove deb print-module-sources clean
