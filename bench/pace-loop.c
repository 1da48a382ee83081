/* The leanest open loop this host can run, as a yardstick for methodic's:
 * THREADS threads, each with its share of IOPS at uniform due times
 * (thread k of n offset by k/n of a gap, as methodic's), each due time
 * waited for with an absolute clock_nanosleep at a timer slack of 1 ns,
 * then one 4KiB O_DIRECT pread at a random aligned offset of TARGET (or
 * none with --no-io). Nothing else: no histogram, no engine, no queue.
 *
 * Prints one line over the I/Os due in the record window (after RAMP_S)
 * that started before it ended (`-` for each figure when none did):
 *   started late_p50_us late_p99_us late_max_us lat_p99_us
 * where late is start minus due time and lat is completion minus due
 * time, both exact (sorted), in microseconds.
 *
 * Usage: pace-loop TARGET IOPS THREADS SECONDS RAMP_S [--no-io]
 * Build: cc -O2 -pthread -o pace-loop bench/pace-loop.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

static const char *target;
static double iops;
static int threads;
static double seconds, ramp;
static int no_io;
static uint64_t start_ns, record_ns, until_ns, blocks;

struct worker {
    int index;
    uint64_t *late, *lat;
    size_t n;
};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t at) {
    struct timespec ts = {(time_t)(at / 1000000000ull), (long)(at % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

static void *run(void *arg) {
    struct worker *w = arg;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int fd = no_io ? -1 : open(target, O_RDONLY | O_DIRECT);
    if (!no_io && fd < 0) {
        perror(target);
        exit(1);
    }
    void *buf;
    if (posix_memalign(&buf, 4096, 4096) != 0) exit(1);
    double gap = 1e9 * threads / iops;
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(w->index + 1);
    for (uint64_t k = 0;; k++) {
        uint64_t due = start_ns + (uint64_t)(((double)k + (double)w->index / threads) * gap);
        if (due >= until_ns) break;
        sleep_until(due);
        uint64_t started = now_ns();
        /* As methodic's workers: nothing starts after the window ends (a
         * loop that fell behind leaves the rest of its backlog). */
        if (started >= until_ns) break;
        if (!no_io) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            if (pread(fd, buf, 4096, (off_t)((seed % blocks) * 4096)) != 4096) {
                perror("pread");
                exit(1);
            }
        }
        uint64_t done = now_ns();
        if (due >= record_ns) {
            w->late[w->n] = started - due;
            w->lat[w->n] = done - due;
            w->n++;
        }
    }
    if (fd >= 0) close(fd);
    free(buf);
    return NULL;
}

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double at(uint64_t *v, size_t n, double q) {
    if (n == 0) return 0;
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return (double)v[i] / 1000.0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: pace-loop TARGET IOPS THREADS SECONDS RAMP_S [--no-io]\n");
        return 2;
    }
    target = argv[1];
    iops = atof(argv[2]);
    threads = atoi(argv[3]);
    seconds = atof(argv[4]);
    ramp = atof(argv[5]);
    no_io = argc > 6 && strcmp(argv[6], "--no-io") == 0;
    if (iops <= 0 || threads < 1 || seconds <= 0) return 2;
    if (!no_io) {
        int fd = open(target, O_RDONLY);
        if (fd < 0) {
            perror(target);
            return 1;
        }
        struct stat st;
        uint64_t size = 0;
        if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
            ioctl(fd, BLKGETSIZE64, &size);
        } else {
            size = (uint64_t)st.st_size;
        }
        close(fd);
        blocks = size / 4096;
        if (blocks == 0) return 1;
    }
    size_t cap = (size_t)(iops / threads * seconds) + 16;
    struct worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    start_ns = now_ns() + 20000000ull;
    record_ns = start_ns + (uint64_t)(ramp * 1e9);
    until_ns = record_ns + (uint64_t)(seconds * 1e9);
    for (int i = 0; i < threads; i++) {
        w[i].index = i;
        w[i].late = calloc(cap, sizeof(uint64_t));
        w[i].lat = calloc(cap, sizeof(uint64_t));
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    size_t n = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        n += w[i].n;
    }
    uint64_t *late = calloc(n + 1, sizeof(uint64_t)), *lat = calloc(n + 1, sizeof(uint64_t));
    size_t j = 0;
    for (int i = 0; i < threads; i++) {
        memcpy(late + j, w[i].late, w[i].n * sizeof(uint64_t));
        memcpy(lat + j, w[i].lat, w[i].n * sizeof(uint64_t));
        j += w[i].n;
    }
    qsort(late, n, sizeof(uint64_t), cmp);
    qsort(lat, n, sizeof(uint64_t), cmp);
    if (n == 0) {
        /* So far behind that nothing due in the window started in it. */
        printf("0 - - - -\n");
        return 0;
    }
    printf("%zu %.1f %.1f %.1f %.1f\n", n, at(late, n, 0.5), at(late, n, 0.99), at(late, n, 1.0), at(lat, n, 0.99));
    return 0;
}
