/*
 * ipsample.c — a sampling profiler to preload into a benchmark, for hosts
 * without perf (the GPU machine's virtual CPUs have no PMU to spare).
 *
 *   IPSAMPLE_OUT=FILE [IPSAMPLE_US=97] LD_PRELOAD=libipsample.so PROGRAM ...
 *
 * A timer on CLOCK_MONOTONIC interrupts the program's main thread every
 * IPSAMPLE_US microseconds and notes the instruction it stopped at. At
 * exit FILE gets one line per distinct address, most frequent first:
 *
 *   COUNT OBJECT OFFSET SYMBOL
 *
 * OFFSET is from the object's load address, for addr2line -f -i -e OBJECT
 * (a build with -g gives lines); SYMBOL is the nearest dynamic symbol, if
 * any. The timer ticks while the thread sleeps too, and a signal cuts a
 * sleep short: run with HCQCL_WAIT=spin so waits do not sleep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES (1u << 22)

static uintptr_t *samples;
static atomic_uint nsamples;
static timer_t timer;
static int active;

static void on_tick(int sig, siginfo_t *si, void *uc_)
{
    (void)sig;
    (void)si;
    const ucontext_t *uc = uc_;
    unsigned i = atomic_fetch_add_explicit(&nsamples, 1, memory_order_relaxed);
    if (i < MAX_SAMPLES)
        samples[i] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

__attribute__((constructor)) static void ipsample_start(void)
{
    const char *us = getenv("IPSAMPLE_US");
    long period = us ? atol(us) : 97;
    if (!getenv("IPSAMPLE_OUT") || period <= 0)
        return;
    samples = malloc(MAX_SAMPLES * sizeof(*samples));
    if (!samples)
        return;
    struct sigaction sa = {.sa_sigaction = on_tick, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF};
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
        return;
    struct itimerspec its = {{0, period * 1000}, {0, period * 1000}};
    timer_settime(timer, 0, &its, NULL);
    active = 1;
}

static int cmp_ip(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

struct row {
    uintptr_t ip;
    unsigned count;
};

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

__attribute__((destructor)) static void ipsample_stop(void)
{
    if (!active)
        return;
    active = 0;
    timer_delete(timer);
    signal(SIGPROF, SIG_IGN);
    unsigned n = atomic_load(&nsamples);
    if (n > MAX_SAMPLES)
        n = MAX_SAMPLES;
    qsort(samples, n, sizeof(*samples), cmp_ip);
    struct row *rows = malloc((n ? n : 1) * sizeof(*rows));
    FILE *f = fopen(getenv("IPSAMPLE_OUT"), "w");
    if (!rows || !f)
        return;
    unsigned nr = 0;
    for (unsigned i = 0; i < n; i++) {
        if (nr && rows[nr - 1].ip == samples[i])
            rows[nr - 1].count++;
        else
            rows[nr++] = (struct row){samples[i], 1};
    }
    qsort(rows, nr, sizeof(*rows), cmp_row);
    fprintf(f, "# %u samples\n", n);
    for (unsigned i = 0; i < nr; i++) {
        Dl_info di;
        if (dladdr((void *)rows[i].ip, &di) && di.dli_fname)
            fprintf(f, "%u %s 0x%lx %s\n", rows[i].count, di.dli_fname,
                    (unsigned long)(rows[i].ip - (uintptr_t)di.dli_fbase),
                    di.dli_sname ? di.dli_sname : "?");
        else
            fprintf(f, "%u ? 0x%lx ?\n", rows[i].count, (unsigned long)rows[i].ip);
    }
    fclose(f);
    free(rows);
}
