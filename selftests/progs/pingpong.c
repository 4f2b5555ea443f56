// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong R: parent and child pass one byte back and forth over two
 * pipes R times (R round trips; each side blocks R times in read).
 * Exits 0.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long r = argc > 1 ? atol(argv[1]) : 2000, i;
	int ping[2], pong[2], st;
	pid_t pid;
	char c = 'x';

	if (pipe(ping) || pipe(pong))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (i = 0; i < r; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < r; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	if (waitpid(pid, &st, 0) != pid || st)
		return 1;
	return 0;
}
