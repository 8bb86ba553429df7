#!/usr/bin/env python3
"""Draws the MMSE sample pictures (Samples/templates/mmse/reloj.png, boligrafo.png).

Plain Python (zlib + struct): no network, no imaging library. Each picture is drawn at 4x
and averaged down, so edges are smooth; the output is byte-for-byte reproducible.
Run: python3 scripts/make-sample-images.py [OUTPUT_FOLDER]
"""
import math
import os
import struct
import sys
import zlib

SIZE = 160
SCALE = 4


class Canvas:
    def __init__(self, size):
        self.size = size
        self.pixels = [[(255, 255, 255)] * size for _ in range(size)]

    def fill(self, inside, colour):
        """Paints every pixel whose centre satisfies inside(x, y) (coordinates in 0..1)."""
        n = self.size
        for y in range(n):
            fy = (y + 0.5) / n
            row = self.pixels[y]
            for x in range(n):
                if inside((x + 0.5) / n, fy):
                    row[x] = colour

    def downsampled(self, factor):
        n = self.size // factor
        out = []
        for y in range(n):
            row = []
            for x in range(n):
                r = g = b = 0
                for dy in range(factor):
                    src = self.pixels[y * factor + dy]
                    for dx in range(factor):
                        pr, pg, pb = src[x * factor + dx]
                        r += pr; g += pg; b += pb
                k = factor * factor
                row.append((r // k, g // k, b // k))
            out.append(row)
        return out


def circle(cx, cy, r):
    return lambda x, y: (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def ring(cx, cy, r_in, r_out):
    return lambda x, y: r_in * r_in <= (x - cx) ** 2 + (y - cy) ** 2 <= r_out * r_out


def segment(ax, ay, bx, by, width):
    """A thick line from (ax, ay) to (bx, by) with round ends."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy

    def inside(x, y):
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length2))
        px, py = ax + t * dx - x, ay + t * dy - y
        return px * px + py * py <= (width / 2) ** 2
    return inside


def polygon(points):
    def inside(x, y):
        result = False
        j = len(points) - 1
        for i, (xi, yi) in enumerate(points):
            xj, yj = points[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                result = not result
            j = i
        return result
    return inside


def rectangle(x0, y0, x1, y1):
    return lambda x, y: x0 <= x <= x1 and y0 <= y <= y1


def watch():
    c = Canvas(SIZE * SCALE)
    strap = (92, 64, 40)
    c.fill(rectangle(0.37, 0.0, 0.63, 1.0), strap)
    for y in (0.08, 0.16, 0.84, 0.92):
        c.fill(circle(0.5, y, 0.018), (40, 28, 18))
    c.fill(circle(0.5, 0.5, 0.34), (150, 150, 160))          # case
    c.fill(rectangle(0.82, 0.46, 0.88, 0.54), (150, 150, 160))  # crown
    c.fill(circle(0.5, 0.5, 0.30), (250, 248, 236))           # dial
    c.fill(ring(0.5, 0.5, 0.295, 0.30), (60, 60, 60))
    for hour in range(12):
        a = math.radians(hour * 30)
        inner = 0.23 if hour % 3 == 0 else 0.255
        c.fill(segment(0.5 + inner * math.sin(a), 0.5 - inner * math.cos(a),
                       0.5 + 0.28 * math.sin(a), 0.5 - 0.28 * math.cos(a),
                       0.022 if hour % 3 == 0 else 0.012), (30, 30, 30))
    hour_angle, minute_angle = math.radians(305), math.radians(60)  # ten past ten
    c.fill(segment(0.5, 0.5, 0.5 + 0.15 * math.sin(hour_angle), 0.5 - 0.15 * math.cos(hour_angle), 0.03), (20, 20, 20))
    c.fill(segment(0.5, 0.5, 0.5 + 0.23 * math.sin(minute_angle), 0.5 - 0.23 * math.cos(minute_angle), 0.02), (20, 20, 20))
    c.fill(circle(0.5, 0.5, 0.02), (180, 30, 30))
    return c.downsampled(SCALE)


def pen():
    c = Canvas(SIZE * SCALE)
    # The pen lies on the diagonal from the top right (the button) to the bottom left (the tip).
    ux, uy = -0.70710678, 0.70710678          # along the pen, towards the tip
    vx, vy = 0.70710678, 0.70710678           # across it

    def at(s, t):
        return (0.5 + s * ux + t * vx, 0.5 + s * uy + t * vy)

    def band(s0, s1, half0, half1):
        return polygon([at(s0, -half0), at(s1, -half1), at(s1, half1), at(s0, half0)])

    c.fill(band(-0.46, -0.40, 0.025, 0.025), (40, 40, 40))            # button
    c.fill(band(-0.40, 0.26, 0.055, 0.055), (30, 80, 170))            # barrel
    c.fill(band(-0.36, -0.05, 0.062, 0.062), (20, 55, 125))           # cap
    c.fill(polygon([at(-0.34, 0.062), at(-0.34, 0.09), at(-0.08, 0.09), at(-0.08, 0.075)]), (190, 190, 200))  # clip
    c.fill(band(0.26, 0.40, 0.055, 0.012), (200, 200, 205))           # cone
    c.fill(circle(*at(0.41, 0.0), 0.012), (20, 20, 20))                # ball
    c.fill(band(0.10, 0.24, 0.057, 0.057), (60, 60, 70))              # grip
    return c.downsampled(SCALE)


def png(rows):
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Samples", "templates", "mmse")
    os.makedirs(folder, exist_ok=True)
    for name, draw in (("reloj.png", watch), ("boligrafo.png", pen)):
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(png(draw()))
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
