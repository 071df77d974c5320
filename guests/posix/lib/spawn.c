/* spawn.c - run an external tool (cyclictest, stress-ng) and wait for it.
 *
 * The child drops to SCHED_OTHER (the tool sets its own real-time policy, e.g.
 * cyclictest -p) and gets stdout+stderr redirected to out_path when given (a file in
 * tmpfs: nothing reaches the console while the tool measures). SIGTERM/SIGINT to the
 * wrapper are passed on to the child. rt_tool_begin opens the tool's run (BEGIN, META
 * with the command line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rt.h"

static volatile pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int rt_spawn_wait(char *const argv[], const char *out_path)
{
	struct sigaction sa = { .sa_handler = forward };
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sched_param sp = { 0 };
		sched_setscheduler(0, SCHED_OTHER, &sp);
		if (out_path) {
			int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(126);
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	child = pid;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	child = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void rt_tool_begin(const char *name, char *const argv[], const char *method)
{
	char cmd[1024];

	cmd[0] = '\0';
	for (int i = 0, len = 0; argv[i] && len < (int)sizeof(cmd) - 1; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, i ? " %s" : "%s", argv[i]);
	xt_begin(name, rt.role, RT_NS);
	rt_meta_env();
	if (method)
		xt_meta("cmd=\"%s\" method=\"%s\"", cmd, method);
	else
		xt_meta("cmd=\"%s\"", cmd);
}
