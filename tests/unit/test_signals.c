/*
 * test_signals.c - unit tests of the interrupt flag (signals.h): the first
 * SIGINT/SIGTERM/SIGHUP only sets the flag, a second one exits at once
 * with 128 + the first signal's number, an ignored signal stays ignored.
 * Each case runs in a child process (the handler calls _exit).
 */
#include "unit.h"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signals.h"

/* Run fn in a child; its exit status (or 1000 + signal when killed). */
static int in_child(void (*fn)(void))
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(99); /* fn always exits */
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

/* The dispositions a foreground program starts with. A test run started
 * in the background of a non-interactive shell inherits SIGINT ignored (as
 * POSIX has such a shell do for its asynchronous lists), and then the
 * library rightly leaves SIGINT alone: the cases below that need the
 * handler start from the default, whoever started the tests. */
static void default_dispositions(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void child_one_signal(void)
{
	default_dispositions();
	if (signals_install_interrupt())
		_exit(2);
	raise(SIGINT);
	/* still running, the flag holds the signal */
	_exit(rb_interrupt_signal == SIGINT ? 0 : 3);
}

static void first_signal_only_sets_the_flag(void **state)
{
	(void)state;
	assert_int_equal(in_child(child_one_signal), 0);
}

static void child_two_signals(void)
{
	default_dispositions();
	if (signals_install_interrupt())
		_exit(2);
	raise(SIGTERM);
	raise(SIGINT);
	_exit(4); /* not reached: the second signal exits */
}

static void second_signal_exits_at_once_with_the_first_status(void **state)
{
	(void)state;
	assert_int_equal(in_child(child_two_signals), 128 + SIGTERM);
}

static void child_ignored(void)
{
	signal(SIGHUP, SIG_IGN); /* as nohup does */
	if (signals_install_interrupt())
		_exit(2);
	raise(SIGHUP);
	raise(SIGHUP);
	_exit(rb_interrupt_signal == 0 ? 0 : 5);
}

static void signal_ignored_at_start_stays_ignored(void **state)
{
	(void)state;
	assert_int_equal(in_child(child_ignored), 0);
}

static void exit_status_and_names(void **state)
{
	(void)state;
	assert_int_equal(signals_exit_status(SIGINT), 130);
	assert_int_equal(signals_exit_status(SIGTERM), 143);
	assert_int_equal(signals_exit_status(SIGHUP), 129);
	assert_string_equal(signals_name(SIGINT), "SIGINT");
	assert_string_equal(signals_name(SIGTERM), "SIGTERM");
	assert_string_equal(signals_name(SIGHUP), "SIGHUP");
	assert_non_null(strstr(signals_name(SIGUSR1), "signal "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_signal_only_sets_the_flag),
		cmocka_unit_test(second_signal_exits_at_once_with_the_first_status),
		cmocka_unit_test(signal_ignored_at_start_stays_ignored),
		cmocka_unit_test(exit_status_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
