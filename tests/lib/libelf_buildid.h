/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test oracle for build-ids: what libelf finds, in PT_NOTE segments
 * first, then SHT_NOTE sections (the order lib/elf_buildid.c uses).
 * Call elf_version(EV_CURRENT) first.
 */
#ifndef MMAP3_LIBELF_BUILDID_H
#define MMAP3_LIBELF_BUILDID_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>
#include <linux/mmap3.h>

struct libelf_id {
	int found;
	size_t size;
	unsigned char bytes[MMAP3_BUILD_ID_SIZE_MAX];
};

static inline int libelf_find_in_data(Elf_Data *data, struct libelf_id *id)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
		    nhdr.n_descsz > 0 && nhdr.n_descsz <= MMAP3_BUILD_ID_SIZE_MAX) {
			id->found = 1;
			id->size = nhdr.n_descsz;
			memcpy(id->bytes, (char *)data->d_buf + desc_off, id->size);
			return 1;
		}
	}
	return 0;
}

/* @cmd: ELF_C_READ_MMAP or ELF_C_READ (the benchmark times both). */
static inline void libelf_buildid_cmd(int fd, Elf_Cmd cmd, struct libelf_id *id)
{
	Elf *elf = elf_begin(fd, cmd, NULL);
	size_t i, n;
	Elf_Scn *scn = NULL;

	memset(id, 0, sizeof(*id));
	if (!elf)
		return;
	if (elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;
			Elf_Data *data;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
				continue;
			data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (data && libelf_find_in_data(data, id))
				goto out;
		}
	}
	while (elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && libelf_find_in_data(data, id))
			goto out;
	}
out:
	elf_end(elf);
}

static inline void libelf_buildid(int fd, struct libelf_id *id)
{
	libelf_buildid_cmd(fd, ELF_C_READ_MMAP, id);
}

/* The same, by path; returns -1 if the file cannot be opened. */
static inline int libelf_buildid_path(const char *path, struct libelf_id *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(id, 0, sizeof(*id));
	if (fd < 0)
		return -1;
	libelf_buildid(fd, id);
	close(fd);
	return 0;
}

#endif /* MMAP3_LIBELF_BUILDID_H */
