"""Independent Python models of the MiBench-style guest benches, for checking their META.

guests/bench/basicmath.c, bitcount.c and susan.c print checksums of their results
(root sums, usqrt sum, bit totals, FNV-1a of the SUSAN outputs); these functions compute
the same figures from the same deterministic inputs with Python's own arithmetic and
libm, so a wrong port, a broken math.c or a changed input generator shows up as a
mismatch. Keep them in step with the C files (same grid, same image, same thresholds).
"""

import math

M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF



def splitmix64(seed):
    s = seed
    while True:
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def fnv(h, v):
    return ((h ^ v) * 16777619) & M32


def micro(v):
    return int(v * 1e6 + (0.5 if v >= 0 else -0.5))


def basicmath_ref(scale):
    """MiBench basicmath as guests/bench/basicmath.c runs it, with Python's libm."""
    roots, root_sum = 0, 0.0
    for id_ in range(10 * scale):
        for ia in range(9):
            for ib in range(10):
                for ic in range(20):
                    a, b, c, d = 1.0 + ia, 10.0 - ib, 5 + 0.5 * ic, -1.0 - id_
                    a1, a2, a3 = b / a, c / a, d / a
                    q = (a1 * a1 - 3.0 * a2) / 9.0
                    r = (2.0 * a1 * a1 * a1 - 9.0 * a1 * a2 + 27.0 * a3) / 54.0
                    r2q3 = r * r - q * q * q
                    if r2q3 <= 0:
                        sq = math.sqrt(q)
                        theta = math.acos(max(-1.0, min(1.0, r / math.sqrt(q * q * q))))
                        xs = [-2.0 * sq * math.cos((theta + k * math.pi) / 3.0) - a1 / 3.0
                              for k in (0.0, 2.0, 4.0)]
                    else:
                        x = (math.sqrt(r2q3) + abs(r)) ** (1.0 / 3.0)
                        x += q / x
                        x *= 1 if r < 0 else -1
                        xs = [x - a1 / 3.0]
                    roots += len(xs)
                    for x in xs:
                        root_sum += x
    vals = [2 * i for i in range(50000 * scale)]
    vals += [(0x3FED0169 + i * 0x9E3779B) & M32 for i in range(1000 * scale)]
    usqrt_sum = sum(math.isqrt(v << 32) for v in vals)
    n, rad_sum, deg_sum = 3600 * scale, 0.0, 0.0
    for i in range(n):
        rad = (i * 360.0 / n) * math.pi / 180.0
        rad_sum += rad
        deg_sum += rad * 180.0 / math.pi
    return roots, micro(root_sum), usqrt_sum, micro(rad_sum), micro(deg_sum)


MASK37 = [(dy, dx) for dy, half in zip(range(-3, 4), (1, 2, 3, 3, 3, 2, 1))
          for dx in range(-half, half + 1)]


def susan_ref(w, h, seed=1, bt=20):
    """guests/bench/susan.c in Python: image, smoothing, edges, corners, checksums."""
    rng, rad, img = splitmix64(seed), min(w, h) // 6, []
    for y in range(h):
        for x in range(w):
            v = 40 + x * 80 // w + y * 40 // h
            dx, dy = x - w * 5 // 8, y - h // 4
            if w // 8 <= x < w * 3 // 8 and h // 6 <= y < h // 2:
                v = 210
            if w // 2 <= x < w * 7 // 8 and h // 2 <= y < h * 5 // 6:
                v = 20
            if dx * dx + dy * dy < rad * rad:
                v = 130
            if h * 7 // 12 <= y < h * 11 // 12 and x >= w // 8 and x - w // 8 < y - h * 7 // 12:
                v = 240
            v += ((next(rng) * 9) >> 64) - 4
            img.append(min(255, max(0, v)))
    bp2 = [int(100.0 * math.exp(-((k / bt) ** 2))) for k in range(256)]
    bp6 = [int(100.0 * math.exp(-((k / bt) * (k / bt)) ** 3)) for k in range(256)]
    sw = {(dy, dx): int(100.0 * math.exp(-(dx * dx + dy * dy) / 4.0)) if dx or dy else 0
          for dy in range(-3, 4) for dx in range(-3, 4)}
    out = list(img)
    edge, corner = [0] * (w * h), [0] * (w * h)
    for y in range(3, h - 3):
        for x in range(3, w - 3):
            c = img[y * w + x]
            area = total = 0
            for (dy, dx), s in sw.items():
                b = img[(y + dy) * w + x + dx]
                t = s * bp2[abs(b - c)]
                area += t
                total += t * b
            out[y * w + x] = total // area if area else c
            sims = [(dy, dx, bp6[abs(img[(y + dy) * w + x + dx] - c)]) for dy, dx in MASK37]
            n = sum(s for _, _, s in sims)
            edge[y * w + x] = 2650 - n if n <= 2650 else 0
            if n < 1850:
                cx = sum(s * dx for _, dx, s in sims)
                cy = sum(s * dy for dy, _, s in sims)
                if cx * cx + cy * cy > n * n // 2:
                    corner[y * w + x] = 1850 - n
    corners = []
    for y in range(5, h - 5):
        for x in range(5, w - 5):
            v, ok = corner[y * w + x], corner[y * w + x] > 0
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    if (dx or dy) and ok:
                        o = corner[(y + dy) * w + x + dx]
                        ok = v > o if (dy < 0 or (dy == 0 and dx < 0)) else v >= o
            if ok:
                corners.append(y * w + x)
    sf = ef = cf = 2166136261
    for v in out:
        sf = fnv(sf, v)
    inner = [edge[y * w + x] for y in range(3, h - 3) for x in range(3, w - 3)]
    for v in inner:
        ef = fnv(ef, v)
    for v in corners:
        cf = fnv(fnv(cf, v), corner[v])
    return dict(smooth_sum=sum(out), smooth_fnv=sf, edges=sum(v > 0 for v in inner),
                edges_sum=sum(inner), edges_fnv=ef, corners=len(corners), corners_fnv=cf)


def bitcount_ref(count, seed):
    """Total set bits of x_j = seed + j * 0x9e3779b9 (mod 2^32), j < count."""
    return sum(bin((seed + j * 0x9E3779B9) & M32).count("1") for j in range(count))
