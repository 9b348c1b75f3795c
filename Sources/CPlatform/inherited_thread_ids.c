// A forked child's thread ids: see fd_passing.h (microapp_fork) and early_zygote.c.
//
// Swift's locks on Linux (the runtime's `ulock` behind swift_once and its metadata caches, and Synchronization's
// `Mutex`) are priority-inheritance futexes whose word holds the owner's thread id, which each thread caches in a
// thread-local variable on first use (ulock_get_tid, _swift_stdlib_gettid). fork() copies that cache: the child's
// one thread keeps its parent's id. When it then holds such a lock while another thread of the child waits for it,
// the kernel sees an owner that is not in the child (FUTEX_LOCK_PI fails, FUTEX_UNLOCK_PI says "not the owner"),
// and both threads loop in the lock's retry forever (a runtime lock) or trap (a Mutex). That was the isolated
// start that waited out its 10 s: a feature's child forked from the zygote, its two threads spinning in
// swift_once. So a forked child forgets the cached ids, and each thread looks its own up again.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/// Where a cached thread id lives: a thread-local variable of one loaded object, by its offset in that object's
/// thread-local block.
struct cached_id {
    void *object;
    size_t offset;
};

enum { max_cached_ids = 512 };
static struct cached_id cached_ids[max_cached_ids];
static int cached_id_count = -1;

/// The thread-local variables that cache a thread id, by symbol name (each inlining of the shim has its own copy).
static int is_cached_id(const char *name) {
    return strcmp(name, "_ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid") == 0 ||
           strncmp(name, "_swift_stdlib_gettid.tid", strlen("_swift_stdlib_gettid.tid")) == 0;
}

/// Records the cached-id variables of one loaded object from its file's symbol table (objects without thread-local
/// storage, or whose file has no symbol table, have none to record).
static int record_object(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size;
    (void)unused;
    int has_tls = 0;
    for (int index = 0; index < info->dlpi_phnum; index++) has_tls |= info->dlpi_phdr[index].p_type == PT_TLS;
    if (!has_tls) return 0;
    const char *path = info->dlpi_name[0] != '\0' ? info->dlpi_name : "/proc/self/exe";
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) return 0;
    struct stat status;
    if (fstat(file, &status) != 0 || (size_t)status.st_size < sizeof(Elf64_Ehdr)) {
        close(file);
        return 0;
    }
    size_t length = (size_t)status.st_size;
    const unsigned char *bytes = mmap(NULL, length, PROT_READ, MAP_PRIVATE, file, 0);
    close(file);
    if (bytes == MAP_FAILED) return 0;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)bytes;
    void *object = NULL;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_ident[EI_CLASS] == ELFCLASS64 &&
        header->e_shentsize == sizeof(Elf64_Shdr) && header->e_shoff <= length &&
        (length - header->e_shoff) / sizeof(Elf64_Shdr) >= header->e_shnum) {
        const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
        for (int index = 0; index < header->e_shnum; index++) {
            const Elf64_Shdr *table = &sections[index];
            if (table->sh_type != SHT_SYMTAB || table->sh_link >= header->e_shnum) continue;
            const Elf64_Shdr *names = &sections[table->sh_link];
            if (table->sh_offset > length || length - table->sh_offset < table->sh_size ||
                names->sh_offset > length || length - names->sh_offset < names->sh_size)
                continue;
            const Elf64_Sym *symbols = (const Elf64_Sym *)(bytes + table->sh_offset);
            size_t count = table->sh_size / sizeof(Elf64_Sym);
            const char *text = (const char *)(bytes + names->sh_offset);
            for (size_t symbol = 0; symbol < count && cached_id_count < max_cached_ids; symbol++) {
                if (ELF64_ST_TYPE(symbols[symbol].st_info) != STT_TLS) continue;
                if (symbols[symbol].st_name >= names->sh_size) continue;
                if (strnlen(text + symbols[symbol].st_name, names->sh_size - symbols[symbol].st_name) ==
                        names->sh_size - symbols[symbol].st_name ||
                    !is_cached_id(text + symbols[symbol].st_name))
                    continue;
                if (object == NULL) {
                    object = info->dlpi_name[0] != '\0' ? dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD)
                                                        : dlopen(NULL, RTLD_LAZY);
                    if (object == NULL) break;
                }
                cached_ids[cached_id_count++] = (struct cached_id){object, (size_t)symbols[symbol].st_value};
            }
        }
    }
    munmap((void *)bytes, length);
    return 0;
}

static void find_once(void) {
    cached_id_count = 0;
    dl_iterate_phdr(record_object, NULL);
}

void microapp_find_cached_thread_ids(void) {
    static pthread_once_t found = PTHREAD_ONCE_INIT;
    pthread_once(&found, find_once);
}

int microapp_cached_thread_id_count(void) { return cached_id_count < 0 ? 0 : cached_id_count; }

void microapp_forget_cached_thread_ids(void) {
    for (int index = 0; index < cached_id_count; index++) {
        void *block = NULL;
        // NULL: this thread has no block of that object yet, so nothing of it is cached.
        if (dlinfo(cached_ids[index].object, RTLD_DI_TLS_DATA, &block) == 0 && block != NULL) {
            memset((char *)block + cached_ids[index].offset, 0, sizeof(int));
        }
    }
}
