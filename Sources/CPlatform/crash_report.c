#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

// The crash report of a process that was forked, not started: the Swift runtime read SWIFT_BACKTRACE when the
// parent started, so its own backtracer would follow the parent's settings (interactive on a terminal). This handler
// replaces it and writes the crashed thread's frames and the executable mappings, in the layout of the runtime's
// report (`CrashReport` reads both), then lets the signal's default action end the process.
//
// Async-signal-safety: the handler uses only open/read/write/close/gettid/raise/pause and plain static storage filled
// in before it is installed, except glibc's backtrace(3): its first call loads libgcc_s (done at install time, never
// in the handler); later calls walk the unwind tables through libgcc, which finds them with _dl_find_object (lock-free
// since glibc 2.35) and does not allocate, but is not on POSIX's list. A stack too damaged to unwind cuts the frame
// list short; the faulting address from the signal context is written first, whatever backtrace finds.

enum { crash_signal_count = 6, frame_capacity = 128, maps_capacity = 1 << 20, path_capacity = 4096 };
static const int crash_signals[crash_signal_count] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
static char report_path[path_capacity];
static char maps[maps_capacity];
static void *frames[frame_capacity];
static volatile pid_t crashing_thread = 0;

/// One line being put together in a fixed buffer (no allocation), written out whole.
struct line {
    char text[path_capacity + 128];
    size_t count;
};

static void put(struct line *line, const char *text, size_t count) {
    size_t room = sizeof line->text - line->count;
    if (count > room) count = room;
    memcpy(line->text + line->count, text, count);
    line->count += count;
}

static void put_string(struct line *line, const char *text) { put(line, text, strlen(text)); }

static void put_hex(struct line *line, unsigned long value) {
    char digits[18] = {'0', 'x'};
    for (int index = 0; index < 16; index++) digits[2 + index] = "0123456789abcdef"[(value >> (60 - 4 * index)) & 0xf];
    put(line, digits, sizeof digits);
}

static void put_decimal(struct line *line, unsigned long value) {
    char digits[20];
    size_t count = 0;
    do {
        digits[sizeof digits - 1 - count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0 && count < sizeof digits);
    put(line, digits + sizeof digits - count, count);
}

static void flush(int descriptor, struct line *line) {
    size_t written = 0;
    while (written < line->count) {
        ssize_t result = write(descriptor, line->text + written, line->count - written);
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0) break;
        written += (size_t)result;
    }
    line->count = 0;
}

static unsigned long parse_hex(const char **cursor) {
    unsigned long value = 0;
    for (;; (*cursor)++) {
        char character = **cursor;
        int digit = character >= '0' && character <= '9'   ? character - '0'
                    : character >= 'a' && character <= 'f' ? character - 'a' + 10
                                                            : -1;
        if (digit < 0) return value;
        value = value << 4 | (unsigned long)digit;
    }
}

/// One executable mapping of /proc/self/maps: `low-high r-xp offset dev inode   /path`.
struct mapping {
    unsigned long low, high;
    const char *path;  // into `maps`, up to the end of its line
    size_t path_count;
};

/// The next executable, file-backed mapping from `*cursor` on (advanced past it); 0 at the end.
static int next_mapping(const char **cursor, const char *end, struct mapping *mapping) {
    while (*cursor < end) {
        const char *line = *cursor;
        const char *line_end = memchr(line, '\n', (size_t)(end - line));
        if (line_end == NULL) line_end = end;
        *cursor = line_end + 1;
        const char *scan = line;
        mapping->low = parse_hex(&scan);
        if (*scan++ != '-') continue;
        mapping->high = parse_hex(&scan);
        if (*scan++ != ' ' || scan + 3 > line_end || scan[2] != 'x') continue;
        const char *path = memchr(scan, '/', (size_t)(line_end - scan));
        if (path == NULL) continue;
        mapping->path = path;
        mapping->path_count = (size_t)(line_end - path);
        return 1;
    }
    return 0;
}

/// The file name of the mapping that holds `address` (a pointer into `maps` and its length), or a zero length.
static const char *image_name(unsigned long address, const char *end, size_t *count) {
    const char *cursor = maps;
    struct mapping mapping;
    while (next_mapping(&cursor, end, &mapping)) {
        if (address < mapping.low || address >= mapping.high) continue;
        const char *name = mapping.path + mapping.path_count;
        while (name > mapping.path && name[-1] != '/') name--;
        *count = (size_t)(mapping.path + mapping.path_count - name);
        return name;
    }
    *count = 0;
    return NULL;
}

static const char *signal_description(int signal_number) {
    switch (signal_number) {
    case SIGSEGV: return "Bad pointer dereference";
    case SIGBUS: return "Bus error";
    case SIGILL: return "Illegal instruction";
    case SIGTRAP: return "System trap";
    case SIGFPE: return "Arithmetic fault";
    default: return "Aborted";
    }
}

static unsigned long interrupted_address(const ucontext_t *context) {
#if defined(__x86_64__)
    return (unsigned long)context->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (unsigned long)context->uc_mcontext.pc;
#else
    (void)context;
    return 0;
#endif
}

/// `N 0x… in libName.so`, as the runtime's report writes a frame (without the image name when no file holds it).
static void write_frame(int descriptor, struct line *line, unsigned long number, unsigned long address, const char *maps_end) {
    size_t name_count = 0;
    const char *name = image_name(address, maps_end, &name_count);
    put_decimal(line, number);
    put_string(line, " ");
    put_hex(line, address);
    if (name_count > 0) {
        put_string(line, " in ");
        put(line, name, name_count);
    }
    put_string(line, "\n");
    flush(descriptor, line);
}

static void write_report(int descriptor, int signal_number, const siginfo_t *info, const ucontext_t *context) {
    size_t maps_count = 0;
    int maps_descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    while (maps_descriptor >= 0 && maps_count < sizeof maps) {
        ssize_t result = read(maps_descriptor, maps + maps_count, sizeof maps - maps_count);
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0) break;
        maps_count += (size_t)result;
    }
    if (maps_descriptor >= 0) close(maps_descriptor);
    const char *maps_end = maps + maps_count;

    unsigned long pc = context != NULL ? interrupted_address(context) : 0;
    // A fault names the address it could not use; the same signal sent by kill(2) (si_code <= 0) names none.
    int fault = (signal_number == SIGSEGV || signal_number == SIGBUS) && info->si_code > 0;
    struct line line = {.count = 0};
    put_string(&line, "*** Program crashed: ");
    put_string(&line, signal_description(signal_number));
    put_string(&line, " at ");
    put_hex(&line, fault ? (unsigned long)info->si_addr : pc);
    put_string(&line, " ***\n\nThread 0 crashed:\n\n");
    flush(descriptor, &line);

    int count = backtrace(frames, frame_capacity);
    // The handler's own frames and the signal trampoline come first: start at the interrupted instruction where the
    // unwinder found it; where it did not, write that instruction first and then everything it found.
    int first = 0;
    while (first < count && (unsigned long)frames[first] != pc) first++;
    unsigned long number = 0;
    if (first == count) {
        first = 0;
        if (pc != 0) write_frame(descriptor, &line, number++, pc, maps_end);
    }
    for (int index = first; index < count; index++) {
        write_frame(descriptor, &line, number++, (unsigned long)frames[index], maps_end);
    }

    put_string(&line, "\nImages:\n\n");
    flush(descriptor, &line);
    const char *cursor = maps;
    struct mapping mapping;
    while (next_mapping(&cursor, maps_end, &mapping)) {
        const char *name = mapping.path + mapping.path_count;
        while (name > mapping.path && name[-1] != '/') name--;
        put_hex(&line, mapping.low);
        put_string(&line, "-");
        put_hex(&line, mapping.high);
        put_string(&line, " ");
        put(&line, name, (size_t)(mapping.path + mapping.path_count - name));
        put_string(&line, " ");
        put(&line, mapping.path, mapping.path_count);
        put_string(&line, "\n");
        flush(descriptor, &line);
    }
}

static void report_crash(int signal_number, siginfo_t *info, void *context) {
    int saved_errno = errno;
    pid_t self = (pid_t)syscall(SYS_gettid);
    pid_t expected = 0;
    if (!__atomic_compare_exchange_n(&crashing_thread, &expected, self, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        // Another thread is writing the report and will end the process; this one waits for that. The same thread
        // crashing again inside the handler ends the process now, with the default action.
        if (expected != self) {
            for (;;) pause();
        }
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    int descriptor = open(report_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (descriptor >= 0) {
        write_report(descriptor, signal_number, info, (const ucontext_t *)context);
        close(descriptor);
    }
    // SA_RESETHAND put the default action back: the signal, blocked while this runs, ends the process on return.
    signal(signal_number, SIG_DFL);
    raise(signal_number);
    errno = saved_errno;
}

int microapp_crash_report_install(const char *path) {
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof report_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(report_path, path, length + 1);
    // The first backtrace loads libgcc_s (dlopen, malloc): done here, never in the handler.
    void *warm[2];
    (void)backtrace(warm, 2);
    // Its own stack, so that a stack overflow on this thread still gets a report (threads started later have none).
    size_t stack_size = 256 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) return -1;
    stack_t alternate = {.ss_sp = stack, .ss_size = stack_size, .ss_flags = 0};
    if (sigaltstack(&alternate, NULL) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = report_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < crash_signal_count; index++) {
        if (sigaction(crash_signals[index], &action, NULL) != 0) return -1;
    }
    return 0;
}
