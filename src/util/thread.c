/* Helper threads of the library's own: detached, every signal blocked
 * (the application's handlers run on its own threads). */
#include "util/util.h"

#include <signal.h>

int util_thread_detached(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t t;
    int rc = pthread_attr_init(&attr);
    if (rc)
        return rc;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&t, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc;
}
