// SPDX-License-Identifier: GPL-2.0
/*
 * memfds N: maps N memfds chosen to collide in an unkeyed 64-bucket hash
 * of (device, inode), the one the module's table of mapped files used up
 * to 4853894 (hash_64(ino ^ dev << 32, 6)), and makes one getpid() from a
 * `syscall` in each: N site rows in N files, all aimed at one bucket of
 * that hash. memfd inode numbers come in sequence, so about one in 64
 * qualifies; the others are closed. Prints "files N tried M" and exits 0.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* mov $39, %eax (getpid); syscall; ret */
static const unsigned char code[] = { 0xb8, 39, 0, 0, 0, 0x0f, 0x05, 0xc3 };

/* The kernel's new_encode_dev(), which stat's st_dev already is. */
static uint32_t bucket(dev_t dev, ino_t ino)
{
	uint64_t key = (uint64_t)ino ^ ((uint64_t)(uint32_t)dev << 32);

	return (key * 0x61C8864680B583EBull) >> 58;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, files = 0, tried = 0;
	long (*fn)(void);
	struct stat st;
	void *p;
	int fd;

	while (files < n) {
		if (++tried > 256 * n)
			return 1;
		fd = memfd_create("st", MFD_CLOEXEC);
		if (fd < 0 || fstat(fd, &st))
			return 1;
		if (bucket(st.st_dev, st.st_ino) != 0) {
			close(fd);
			continue;
		}
		if (write(fd, code, sizeof(code)) != sizeof(code))
			return 1;
		p = mmap(NULL, sizeof(code), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			return 1;
		fn = (long (*)(void))p;
		if (fn() != getpid())
			return 1;
		files++;
	}
	printf("files %ld tried %ld\n", files, tried);
	return 0;
}
