#include "histogram.h"
#include "base/ks_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ks_hist_mode_name(ks_hist_mode m)
{
    static const char *const names[] = {"bytes", "pairs", "words"};
    return (m >= KS_HIST_BYTES && m <= KS_HIST_WORDS) ? names[m] : "?";
}

const char *ks_hist_input_name(ks_hist_input_kind k)
{
    static const char *const names[] = {"text", "uniform", "equal", "file"};
    return (k >= 0 && k < KS_HIST_IN_NUM) ? names[k] : "?";
}

unsigned ks_hist_pair_bin(unsigned v, unsigned bins)
{
    return (unsigned)(((uint64_t)v * bins) >> 16);
}

static int is_letter(unsigned char c)
{
    return (unsigned char)((c | 32) - 'a') < 26;
}

uint32_t ks_hist_fnv1a_lower(const unsigned char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; ++i) {
        h ^= (uint32_t)(s[i] | 32);
        h *= 16777619u;
    }
    return h;
}

size_t ks_hist_items(ks_hist_mode m, size_t begin, size_t end)
{
    if (end <= begin) return 0;
    return m == KS_HIST_PAIRS ? (end - begin + 1) / 2 : end - begin;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The 128 most common English words, most frequent first. */
static const char *const ks_vocab[] = {
    "the", "of", "and", "to", "a", "in", "is", "it", "you", "that", "he", "was", "for", "on",
    "are", "with", "as", "his", "they", "be", "at", "one", "have", "this", "from", "or", "had",
    "by", "hot", "word", "but", "what", "some", "we", "can", "out", "other", "were", "all",
    "there", "when", "up", "use", "your", "how", "said", "an", "each", "she", "which", "do",
    "their", "time", "if", "will", "way", "about", "many", "then", "them", "write", "would",
    "like", "so", "these", "her", "long", "make", "thing", "see", "him", "two", "has", "look",
    "more", "day", "could", "go", "come", "did", "number", "sound", "no", "most", "people", "my",
    "over", "know", "water", "than", "call", "first", "who", "may", "down", "side", "been", "now",
    "find", "any", "new", "work", "part", "take", "get", "place", "made", "live", "where",
    "after", "back", "little", "only", "round", "man", "year", "came", "show", "every", "good",
    "me", "give", "our", "under", "name", "very", "through", "just", "form", "sentence",
};
enum { KS_VOCAB_N = (int)(sizeof ks_vocab / sizeof ks_vocab[0]) };

static void generate_text(unsigned long long seed, unsigned char *out, size_t n)
{
    /* Zipf cumulative weights 1/(r+1), scaled to 2^32. */
    uint64_t cum[KS_VOCAB_N];
    double total = 0.0;
    for (int r = 0; r < KS_VOCAB_N; ++r) total += 1.0 / (r + 1);
    double acc = 0.0;
    for (int r = 0; r < KS_VOCAB_N; ++r) {
        acc += 1.0 / (r + 1);
        cum[r] = (uint64_t)(acc / total * 4294967296.0);
    }
    cum[KS_VOCAB_N - 1] = 4294967296ull;
    uint64_t state = seed;
    size_t pos = 0;
    int capital = 1;
    while (pos < n) {
        const uint64_t x = splitmix64(&state);
        const uint64_t u = x & 0xffffffffu;
        int lo = 0, hi = KS_VOCAB_N - 1;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (u < cum[mid]) hi = mid;
            else lo = mid + 1;
        }
        const char *w = ks_vocab[lo];
        for (size_t i = 0; w[i] && pos < n; ++i) {
            unsigned char c = (unsigned char)w[i];
            if (i == 0 && capital) c = (unsigned char)(c - 32);
            out[pos++] = c;
        }
        capital = 0;
        const unsigned p = (unsigned)(x >> 32) % 48; /* 3/48 comma, 3/48 period, 2/48 newline */
        if (p < 3) {
            if (pos < n) out[pos++] = ',';
        } else if (p < 6) {
            if (pos < n) out[pos++] = '.';
            capital = 1;
        }
        if (pos < n) out[pos++] = (p >= 6 && p < 8) ? '\n' : ' ';
    }
}

void ks_hist_generate(ks_hist_input_kind k, unsigned long long seed, unsigned char *out, size_t n)
{
    if (k == KS_HIST_IN_EQUAL) {
        memset(out, 'a', n);
    } else if (k == KS_HIST_IN_UNIFORM) {
        uint64_t state = seed ^ 0x5bd1e995u;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            const uint64_t x = splitmix64(&state);
            memcpy(out + i, &x, 8);
        }
        if (i < n) {
            const uint64_t x = splitmix64(&state);
            memcpy(out + i, &x, n - i);
        }
    } else {
        generate_text(seed, out, n);
    }
}

ks_status ks_hist_load_file(const char *path, unsigned char **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    FILE *f = NULL;
    const int e = ks_fopen_regular(path, &f);
    if (e < 0) return ks_fail(KS_ERR_INVALID, "'%s' is not a regular file", KS_QUOTED(path));
    if (e) return ks_fail(KS_ERR_IO, "cannot open '%s': %s", KS_QUOTED(path), strerror(e));
    if (fseeko(f, 0, SEEK_END) != 0) {
        fclose(f);
        return ks_fail(KS_ERR_IO, "cannot seek in '%s' (not a regular file?)", KS_QUOTED(path));
    }
    const off_t size = ftello(f);
    if (size <= 0 || (unsigned long long)size > KS_HIST_MAX_BYTES) {
        fclose(f);
        return ks_fail(KS_ERR_INVALID, "'%s' has %lld bytes (1..%llu accepted)", KS_QUOTED(path),
                       (long long)size, KS_HIST_MAX_BYTES);
    }
    rewind(f);
    unsigned char *buf = malloc((size_t)size);
    if (!buf) {
        fclose(f);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "no memory for %lld bytes", (long long)size);
    }
    const size_t got = fread(buf, 1, (size_t)size, f);
    const int bad = ferror(f);
    fclose(f);
    if (bad || got != (size_t)size) {
        free(buf);
        return ks_fail(KS_ERR_IO, "cannot read '%s'", KS_QUOTED(path));
    }
    *out = buf;
    *n = (size_t)size;
    return KS_OK;
}

void ks_hist_gold(const unsigned char *data, size_t n, size_t begin, size_t end, ks_hist_mode m,
                  unsigned bins, uint64_t *hist)
{
    if (end > n) end = n;
    if (begin >= end) return;
    if (m == KS_HIST_BYTES) {
        for (size_t i = begin; i < end; ++i) ++hist[data[i]];
    } else if (m == KS_HIST_PAIRS) {
        for (size_t i = begin; i < end; i += 2) {
            const unsigned v = data[i] | (i + 1 < n ? (unsigned)data[i + 1] << 8 : 0u);
            ++hist[ks_hist_pair_bin(v, bins)];
        }
    } else {
        for (size_t i = begin; i < end; ++i) {
            if (!is_letter(data[i]) || (i > 0 && is_letter(data[i - 1]))) continue;
            size_t j = i;
            while (j < n && is_letter(data[j])) ++j;
            ++hist[ks_hist_fnv1a_lower(data + i, j - i) % bins];
            i = j - 1 < end ? j - 1 : end; /* the word's letters start no other word */
        }
    }
}

/* The height of picture column x of w: the counts of the bins it covers
 * (at least one), log10(1 + sum) on a log scale. */
void ks_hist_draw_bars_cpu(const uint64_t *hist, unsigned bins, int log_scale, const ks_hist_axes *ax,
                           const unsigned char *mask, unsigned char *rgba, int w, int h)
{
    static const unsigned char bar[4] = {70, 160, 230, 255}, back[4] = {18, 18, 24, 255},
                               ink[4] = {225, 225, 230, 255}, grid[4] = {52, 52, 64, 255};
    for (int x = 0; x < w; ++x) {
        const int px = x - ax->x0;
        const int in_x = px >= 0 && px < ax->pw;
        const int rows = in_x ? ks_hist_bar_rows(ks_hist_column(hist, bins, log_scale, px / ax->cw, ax->cols), ax->top, ax->ph) : 0;
        for (int y = 0; y < h; ++y) {
            const size_t e = (size_t)y * w + x;
            const int py = y - ax->y0;
            const int on = in_x && py >= 0 && py < rows;
            const unsigned char *c = mask[e] == KS_HIST_MASK_INK                 ? ink
                                     : on                                        ? bar
                                     : mask[e] == KS_HIST_MASK_GRID              ? grid
                                                                                 : back;
            memcpy(rgba + 4 * e, c, 4);
        }
    }
}
