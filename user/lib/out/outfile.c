// SPDX-License-Identifier: GPL-2.0
/*
 * Output files that are whole or absent (outfile.h): written under a
 * temporary name beside the target, renamed over it once complete; a
 * catching signal meanwhile removes the temporary file.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/err.h"
#include "out/outfile.h"

/*
 * The temporary file of st_output_open(), for the signal handler: removed
 * when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the program while it is
 * being written (a SIGKILL leaves it, under a name of its own).
 */
static char tmp_path[PATH_MAX];
static volatile sig_atomic_t tmp_live;
static struct sigaction old_act[4];
static const int tmp_signals[4] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void tmp_signal(int sig)
{
	size_t i;

	if (tmp_live)
		unlink(tmp_path);
	for (i = 0; i < 4; i++)
		sigaction(tmp_signals[i], &old_act[i], NULL);
	raise(sig);
}

/*
 * A signal the program was started with ignored (a background job of a
 * script, nohup) stays ignored: catching it would remove the file that is
 * still being written, and the program would go on writing it unnamed.
 */
static void tmp_guard(bool on)
{
	struct sigaction sa = { .sa_handler = tmp_signal };
	size_t i;

	tmp_live = on;
	for (i = 0; i < 4; i++) {
		if (on) {
			sigaction(tmp_signals[i], NULL, &old_act[i]);
			if (old_act[i].sa_handler != SIG_IGN)
				sigaction(tmp_signals[i], &sa, NULL);
		} else {
			sigaction(tmp_signals[i], &old_act[i], NULL);
		}
	}
}

/*
 * Where path's bytes go: a new file beside it, ".NAME.XXXXXX", renamed to
 * path by st_output_close() once whole. A path that is a link is written
 * where it points; one that exists but is no regular file (/dev/stdout, a
 * FIFO) is written in place, as is stdout (path NULL).
 */
int st_output_open(struct st_outfile *o, const char *path, struct st_err *err)
{
	char dir[PATH_MAX], *real = NULL, *slash;
	const char *target = path;
	mode_t mask;
	struct stat st;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	o->f = stdout;
	if (!path)
		return 0;
	o->path = path;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		goto opened;
	}
	real = realpath(path, NULL);	/* NULL: no such file yet */
	if (real)
		target = real;
	if (strlen(target) + 16 > sizeof(o->target)) {
		free(real);
		st_err_set(err, ST_ERR_LOCAL, ENAMETOOLONG, path, NULL);
		return -ENAMETOOLONG;
	}
	strcpy(o->target, target);
	free(real);
	strcpy(dir, o->target);
	slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	snprintf(o->tmp, sizeof(o->tmp), "%s.%s.XXXXXX", slash ? dir : "",
		 slash ? o->target + (slash - dir) + 1 : o->target);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, path, NULL);
		return ret;
	}
	/* The mode fopen(path, "w") would give: the old file's, or 0666 & ~umask. */
	if (!stat(o->target, &st)) {
		fchmod(fd, st.st_mode & 07777);
	} else {
		mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	memcpy(tmp_path, o->tmp, sizeof(o->tmp));
	tmp_guard(true);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		ret = -errno;
		close(fd);
		st_output_abort(o);
		st_err_set(err, ST_ERR_LOCAL, -ret, path, NULL);
		return ret;
	}
	return 0;
opened:
	if (!o->f) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, path, NULL);
		return ret;
	}
	return 0;
}

/* The temporary file goes, and the target is as it was. */
void st_output_abort(struct st_outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0]) {
		unlink(o->tmp);
		tmp_guard(false);
		o->tmp[0] = '\0';
	}
}

int st_output_close(struct st_outfile *o)
{
	int ret = 0;

	if (fflush(o->f) || ferror(o->f))
		ret = -EIO;
	if (!ret && o->tmp[0] && fsync(fileno(o->f)))
		ret = -errno;
	if (o->f != stdout && fclose(o->f) && !ret)
		ret = -EIO;
	o->f = NULL;
	if (!ret && o->tmp[0] && rename(o->tmp, o->target))
		ret = -errno;
	if (ret) {
		st_output_abort(o);
		return ret;
	}
	if (o->tmp[0]) {
		tmp_guard(false);
		o->tmp[0] = '\0';
	}
	return 0;
}

int st_output_write(const char *path, const char *what,
		    int (*write)(FILE *f, const void *ctx), const void *ctx,
		    struct st_err *err)
{
	struct st_outfile o;
	int ret;

	ret = st_output_open(&o, path, err);
	if (ret)
		return ret;
	ret = write(o.f, ctx);
	if (ret)
		st_output_abort(&o);
	else
		ret = st_output_close(&o);
	if (ret)
		st_err_set(err, ST_ERR_LOCAL, -ret, what, "%s", path ? path : "stdout");
	return ret;
}
