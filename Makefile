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
#   make bench           every benchmark, into bench/RESULTS.md (bench/run;
#                        BENCH_ARGS=--quick for a short run)
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

DEMO_KERNEL ?= 6.1
bench:
	bench/run $(BENCH_ARGS)

demo:
	@demo/run $(DEMO_KERNEL)

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

# The packages are built from a copy of the tree (what git tracks, plus
# files not yet added that it does not ignore), so nothing lands in the
# checkout.  Missing build dependencies are installed when run as root.
DEB_DIR ?= $(CURDIR)/.cache/deb
# Until the man page lands (userspace/ or docs/mmap3.1, which debian/rules
# packages as soon as it exists), lintian's no-manual-page is expected.
LINTIAN_KNOWN := $(if $(wildcard userspace/mmap3.1 docs/mmap3.1),,--suppress-tags no-manual-page)
deb:
	@rm -rf $(DEB_DIR)
	@mkdir -p $(DEB_DIR)/mmap3-$(VERSION)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -co --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh; \
	else \
		find . -path ./.cache -prune -o -path ./.git -prune -o -type f -print0; \
	fi | tar --null -T - -cf - | tar -xf - -C $(DEB_DIR)/mmap3-$(VERSION)
	@cd $(DEB_DIR)/mmap3-$(VERSION) && if ! dpkg-checkbuilddeps 2>/dev/null; then \
		test "$$(id -u)" -eq 0 || { dpkg-checkbuilddeps; exit 1; }; \
		echo "make deb: installing the build dependencies"; \
		DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q ./ >/dev/null; fi
	@echo "make deb: dpkg-buildpackage in $(DEB_DIR)/mmap3-$(VERSION)"
	@cd $(DEB_DIR)/mmap3-$(VERSION) && dpkg-buildpackage -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; echo "make deb: dpkg-buildpackage failed (log: $(DEB_DIR)/build.log)" >&2; exit 1; }
	@command -v lintian >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q lintian >/dev/null
	@echo "make deb: lintian"
	@lintian --fail-on warning,error --info --display-info $(LINTIAN_KNOWN) \
		$(DEB_DIR)/mmap3_$(VERSION)_*.changes
	$(if $(LINTIAN_KNOWN),@echo "make deb: lintian's no-manual-page left out: the tree has no mmap3.1 yet")
	@ls $(DEB_DIR)/*.deb

print-module-sources:
	@echo $(MODULE_SOURCES)

clean:
	@if test -f $(KDIR)/Makefile; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean

.PHONY: all module userspace selftests check bench demo dkms-install dkms-remove deb print-module-sources clean
