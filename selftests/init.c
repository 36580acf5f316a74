// SPDX-License-Identifier: GPL-2.0
/*
 * init for the QEMU test initramfs: mount the pseudo file systems, run the
 * installed kselftests the way run_kselftest.sh does, print TAP and power
 * off. Static, so the initramfs needs no shell and no libraries.
 *
 * TAP goes to /dev/hvc0 (a virtio console the host writes to a file of its
 * own) so that kernel messages on the serial console cannot interleave
 * with it; without hvc0 it goes to the console.
 *
 * The kernel command line may carry "kselftest.filter=COLLECTION" to run
 * one collection only, or "kselftest.filter=-COLLECTION" to run all others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KSELFTEST_DIR		"/kselftest"
#define DEFAULT_TIMEOUT_S	45
#define KSFT_SKIP		4
#define MAX_TESTS		256

struct test {
	char collection[128];
	char name[128];
};

static FILE *tap;

static void mount_fs(const char *source, const char *target, const char *type)
{
	mkdir(target, 0755);
	if (mount(source, target, type, 0, NULL) && errno != EBUSY && tap)
		fprintf(tap, "# init: mount %s on %s: %s\n", type, target,
			strerror(errno));
}

static void read_file(const char *path, char *buf, size_t size)
{
	ssize_t n = 0;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		fprintf(tap, "# init: write %s: %s\n", path, strerror(errno));
	close(fd);
}

/*
 * The "timeout=" line of a collection's settings file, as in
 * run_kselftest.sh; 0 means no limit.
 */
static int collection_timeout(const char *collection)
{
	char path[512], buf[512], *line, *save;

	snprintf(path, sizeof(path), "%s/%.128s/settings", KSELFTEST_DIR, collection);
	read_file(path, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "timeout=", strlen("timeout=")))
			return atoi(line + strlen("timeout="));
	return DEFAULT_TIMEOUT_S;
}

/* Return the number of tests, or -1 if there are more than MAX_TESTS. */
static int load_tests(struct test *tests, const char *filter)
{
	struct test t;
	char line[300];
	int n = 0;
	FILE *list;

	list = fopen(KSELFTEST_DIR "/kselftest-list.txt", "re");
	if (!list)
		return 0;
	while (fgets(line, sizeof(line), list)) {
		if (sscanf(line, "%127[^:]:%127s", t.collection, t.name) != 2)
			continue;
		if (filter[0] == '-' ? !strcmp(filter + 1, t.collection) :
		    filter[0] && strcmp(filter, t.collection))
			continue;
		if (n == MAX_TESTS) {
			n = -1;
			break;
		}
		tests[n++] = t;
	}
	fclose(list);
	return n;
}

/* The child's output, copied to TAP a line at a time behind "# ". */
struct relay {
	char line[4096];
	size_t len;
};

static void relay_line(struct relay *r)
{
	r->line[r->len] = '\0';
	fprintf(tap, "# %s\n", r->line);
	r->len = 0;
}

static void relay_bytes(struct relay *r, const char *buf, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			relay_line(r);
			continue;
		}
		if (r->len == sizeof(r->line) - 1)
			relay_line(r);
		r->line[r->len++] = buf[i];
	}
	fflush(tap);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Run one test in a process group of its own, relaying its output until
 * it exits or its timeout passes. Whatever the outcome, the whole group
 * is killed and every orphan reaped, so nothing leaks into the next test.
 * Return the TAP directive, empty for a pass; *ok says pass or fail.
 */
static const char *run_test(const struct test *t, int *ok)
{
	static char directive[64];
	struct relay relay = { .len = 0 };
	int pipefd[2], status = 0, timeout;
	bool exited = false, pipe_open = true;
	char dir[512], buf[4096];
	double deadline;
	ssize_t n;
	pid_t pid;

	*ok = 0;
	snprintf(dir, sizeof(dir), "%s/%.128s", KSELFTEST_DIR, t->collection);
	timeout = collection_timeout(t->collection);
	deadline = timeout > 0 ? now_s() + timeout : 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return " # init: pipe failed";

	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return " # init: fork failed";
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		if (chdir(dir) == 0)
			execl(t->name, t->name, (char *)NULL);
		fprintf(stderr, "cannot run %s/%s: %s\n", dir, t->name,
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(pipefd[1]);

	while (!exited) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };

		if (poll(&pfd, pipe_open ? 1 : 0, 200) > 0) {
			n = read(pipefd[0], buf, sizeof(buf));
			if (n > 0)
				relay_bytes(&relay, buf, n);
			else
				pipe_open = false;
		}
		exited = waitpid(pid, &status, WNOHANG) == pid;
		if (!exited && deadline && now_s() >= deadline)
			break;
	}

	kill(-pid, SIGKILL);
	if (!exited)
		waitpid(pid, &status, 0);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
		relay_bytes(&relay, buf, n);
	if (relay.len)
		relay_line(&relay);
	close(pipefd[0]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;

	if (!exited) {
		snprintf(directive, sizeof(directive), " # TIMEOUT %d seconds", timeout);
		return directive;
	}
	*ok = 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
		return " # SKIP";
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return "";
	*ok = 0;
	if (WIFSIGNALED(status))
		snprintf(directive, sizeof(directive), " # killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(directive, sizeof(directive), " # exit=%d",
			 WEXITSTATUS(status));
	return directive;
}

/*
 * With kmemleak, scan once the last test's objects are older than its
 * minimum age (5 s); a leak is reported in the kernel log.
 */
static void kmemleak_scan(void)
{
	if (access("/sys/kernel/debug/kmemleak", W_OK))
		return;
	sleep(6);
	write_file("/sys/kernel/debug/kmemleak", "scan");
}

int main(void)
{
	static struct test tests[MAX_TESTS];
	char cmdline[4096], filter[128] = "", *p;
	int i, n, ok;

	mount_fs("devtmpfs", "/dev", "devtmpfs");
	tap = fopen("/dev/hvc0", "we");
	if (!tap) {
		/* The host reads TAP only from hvc0: say why there is none. */
		tap = fopen("/dev/console", "we");
		if (!tap)
			return 1;
		fprintf(tap, "init: no /dev/hvc0 (CONFIG_VIRTIO_CONSOLE?); TAP follows here\n");
	}
	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	mount_fs("tracefs", "/sys/kernel/tracing", "tracefs");
	mount_fs("tmpfs", "/tmp", "tmpfs");

	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	p = strstr(cmdline, "kselftest.filter=");
	if (p)
		sscanf(p + strlen("kselftest.filter="), "%127s", filter);

	n = load_tests(tests, filter);
	fprintf(tap, "TAP version 13\n");
	if (n < 0) {
		fprintf(tap, "Bail out! more than %d kselftests; raise MAX_TESTS\n",
			MAX_TESTS);
		n = 0;
	}
	fprintf(tap, "1..%d\n", n);
	fflush(tap);
	for (i = 0; i < n; i++) {
		const char *directive;

		fprintf(tap, "# selftests: %s: %s\n", tests[i].collection,
			tests[i].name);
		fflush(tap);
		directive = run_test(&tests[i], &ok);
		fprintf(tap, "%sok %d selftests: %s: %s%s\n", ok ? "" : "not ",
			i + 1, tests[i].collection, tests[i].name, directive);
		fflush(tap);
	}

	kmemleak_scan();
	fprintf(tap, "# init: done\n");
	fclose(tap);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
