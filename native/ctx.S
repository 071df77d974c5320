/* ctx.S - xt_ctx_init / xt_ctx_switch for the native program: the probe guests' own
 * per-arch assembly (pure user-mode code, same ABI as Linux user space). */
#if defined(__x86_64__)
#include "../guests/lib/x86_64/ctx.S"
#elif defined(__aarch64__)
#include "../guests/lib/arm64/ctx.S"
#else
#error "native: unsupported architecture"
#endif
