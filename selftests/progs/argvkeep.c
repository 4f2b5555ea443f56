// SPDX-License-Identifier: GPL-2.0
/*
 * argvkeep DIR: images with known argv, each writing what
 * /proc/self/cmdline says inside it to DIR/<stage> (raw bytes):
 *   top    (this call) writes DIR/top, then execs itself as "known";
 *   known  argv: self, "known", DIR, "a b", "it's \"q\"", "", "\xff\xfe",
 *          "line1\nline2"; writes DIR/known, forks a child (no exec) that
 *          writes DIR/child, reaps it, then execs itself as "long";
 *   long   argv: self, "long", DIR, then 100 arguments of 40 bytes
 *          ("L000xxx...", 4100+ bytes in all), the first made longer (up
 *          to 80 bytes) so that an argument ends exactly at byte 4096 (its
 *          NUL is byte 4095); writes DIR/long, exits 0
 *          (with ARGVKEEP_WAIT set, once a byte is read from stdin: a test
 *          reads the live session while it waits).
 * Exits 0, or the step that failed (100 + n).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NLONG	100
#define LONGLEN	40

static char self[PATH_MAX];

static int save(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[16384];
	ssize_t n, len = 0;
	int in, out;

	in = open("/proc/self/cmdline", O_RDONLY);
	if (in < 0)
		return -1;
	while ((n = read(in, buf + len, sizeof(buf) - (size_t)len)) > 0)
		len += n;
	close(in);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return -1;
	n = write(out, buf, (size_t)len);
	close(out);
	return n == len ? 0 : -1;
}

static int known(char *dir)
{
	char *argv[] = { self, "known", dir, "a b", "it's \"q\"", "", "\xff\xfe",
			 "line1\nline2", NULL };

	execv(self, argv);
	return 103;
}

static int longer(char *dir)
{
	static char args[NLONG][2 * LONGLEN + 1];
	char *argv[NLONG + 4] = { self, "long", dir };
	size_t head = strlen(self) + 1 + sizeof("long") + strlen(dir) + 1;
	size_t pad = head < 4096 ? (4096 - head) % (LONGLEN + 1) : 0;
	int i;

	for (i = 0; i < NLONG; i++) {
		size_t len = LONGLEN + (i ? 0 : pad);

		memset(args[i], 'x', len);
		args[i][len] = '\0';
		snprintf(args[i], 5, "L%03d", i);
		args[i][4] = 'x';
		argv[3 + i] = args[i];
	}
	argv[3 + NLONG] = NULL;
	execv(self, argv);
	return 104;
}

int main(int argc, char **argv)
{
	ssize_t n;
	pid_t pid;
	int st;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 101;
	self[n] = 0;
	if (argc == 2) {
		if (save(argv[1], "top"))
			return 102;
		return known(argv[1]);
	}
	if (argc < 3)
		return 101;
	if (!strcmp(argv[1], "known")) {
		if (save(argv[2], "known"))
			return 102;
		pid = fork();
		if (pid == 0)
			_exit(save(argv[2], "child") ? 102 : 0);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
			return 105;
		return longer(argv[2]);
	}
	if (!strcmp(argv[1], "long")) {
		char c;

		if (save(argv[2], "long"))
			return 102;
		if (getenv("ARGVKEEP_WAIT") && read(0, &c, 1) != 1)
			return 106;
		return 0;
	}
	return 101;
}
