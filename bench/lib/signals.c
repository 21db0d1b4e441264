/*
 * signals.c - the interrupt flag of a client run (contract in signals.h).
 *
 * The handler does nothing but store the signal number, or, when one is
 * already stored (a second Ctrl-C), call _exit: both are async-signal-safe.
 * Everything else (stopping the point, writing the outputs, the closing
 * line) happens in the client's own thread when it reads the flag.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"

volatile sig_atomic_t rb_interrupt_signal;

static void on_interrupt(int sig)
{
	if (rb_interrupt_signal)
		_exit(128 + rb_interrupt_signal);
	rb_interrupt_signal = sig;
}

int signals_install_interrupt(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old))
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue; /* ignored by who started us (nohup, a background job) */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_interrupt;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0; /* no SA_RESTART: poll() and connect() return EINTR */
		if (sigaction(sigs[i], &sa, NULL))
			return -1;
	}
	return 0;
}

int signals_exit_status(int sig)
{
	return 128 + sig;
}

const char *signals_name(int sig)
{
	static char buf[32];

	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default:
		snprintf(buf, sizeof(buf), "signal %d", sig);
		return buf;
	}
}
