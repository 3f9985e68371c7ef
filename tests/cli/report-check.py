#!/usr/bin/env python3
"""report-check.py - judge what headless Chromium made of a `sandeval report --html` page (for report.bats)

  report-check.py dom DUMP CHART...   the DOM Chromium dumped (--dump-dom): no <script>
                                      element, every CHART an <svg data-chart> whose first
                                      child is a <title> and that draws marks (non-empty
                                      path, rect, circle or line of class "mark"), or says
                                      why it is empty (data-empty="true" and a <text>)
  report-check.py empty DUMP CHART    CHART is drawn empty (exit 1 when it has marks)
  report-check.py net NETLOG          Chromium's --log-net-log: the page requested nothing
                                      (requests of the page's file:// site; Chromium's own
                                      background requests are not the page's)
  report-check.py png FILE W H        a valid PNG of W x H pixels that is not blank: more
                                      than one colour, and a share of non-background pixels

Exit 0 when all holds; else 1, with every problem on stderr. Standard library only.
"""
import html.parser
import struct
import sys
import zlib


class Dom(html.parser.HTMLParser):
    """Charts are <svg data-chart> elements; they hold no nested <svg>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = 0
        self.charts = {}
        self.cur = None
        self.first_child = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and "data-chart" in a:
            self.cur = self.charts.setdefault(a["data-chart"], {
                "count": 0, "empty": a.get("data-empty") == "true", "marks": 0, "title_first": False,
                "texts": []})
            self.cur["count"] += 1
            self.first_child = None
            return
        if self.cur is None:
            return
        if self.first_child is None:
            self.first_child = tag
            self.cur["title_first"] = tag == "title"
        if "mark" in a.get("class", "").split() and drawn(tag, a):
            self.cur["marks"] += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None

    def handle_data(self, data):
        if self.cur is not None and data.strip():
            self.cur["texts"].append(data.strip())


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def drawn(tag, a):
    if tag == "path":
        return len(a.get("d", "").strip()) > 2
    if tag == "rect":
        return num(a.get("width")) > 0 and num(a.get("height")) > 0
    if tag == "circle":
        return num(a.get("r")) > 0
    if tag == "line":
        return (num(a.get("x1")), num(a.get("y1"))) != (num(a.get("x2")), num(a.get("y2")))
    return False


def check_dom(path, charts, want_empty=False):
    d = Dom()
    with open(path, encoding="utf-8", errors="replace") as f:
        d.feed(f.read())
    bad = []
    if d.scripts:
        bad.append("%d <script> element(s) in the rendered DOM" % d.scripts)
    for c in charts:
        info = d.charts.get(c)
        if info is None:
            bad.append("chart '%s' is missing from the rendered DOM" % c)
            continue
        if info["count"] != 1:
            bad.append("chart '%s' appears %d times" % (c, info["count"]))
        if not info["title_first"]:
            bad.append("chart '%s' does not start with a <title>" % c)
        if want_empty:
            if info["marks"] or not info["empty"]:
                bad.append("chart '%s' is not empty (%d marks)" % (c, info["marks"]))
        elif info["empty"]:
            if info["marks"] or not info["texts"]:
                bad.append("empty chart '%s' does not say why" % c)
        elif info["marks"] == 0:
            bad.append("chart '%s' draws nothing" % c)
    return bad


def check_net(path):
    import json
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read().rstrip().rstrip(",")
    if not text.endswith("}"):  # a log cut short still ends its events list with a comma
        text += "]}"
    d = json.loads(text)
    names = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    bad = []
    for e in d.get("events", []):
        p = e.get("params") or {}
        if names.get(e.get("type")) == "URL_REQUEST_START_JOB" and "file://" in p.get("network_isolation_key", ""):
            bad.append("the page requested '%s'" % p.get("url"))
    return bad


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def check_png(path, want_w, want_h):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return ["'%s' is not a PNG" % path]
    pos, idat, ihdr = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]:
            return ["'%s': bad CRC in chunk %r" % (path, kind)]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if not ihdr:
        return ["'%s' has no IHDR" % path]
    w, h, depth, ctype = ihdr[:4]
    if (w, h) != (want_w, want_h):
        return ["'%s' is %dx%d, expected %dx%d" % (path, w, h, want_w, want_h)]
    if depth != 8 or ctype not in (2, 6):
        return ["'%s': unexpected PNG format (depth %d, colour type %d)" % (path, depth, ctype)]
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        return ["'%s': truncated image data" % path]
    prev = bytearray(stride)
    colours = {}
    for y in range(h):
        ft = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif ft == 2:
            row = bytearray((x + p) & 255 for x, p in zip(row, prev))
        elif ft == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif ft == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                c = prev[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + paeth(a, prev[i], c)) & 255
        elif ft != 0:
            return ["'%s': bad filter type %d" % (path, ft)]
        if y % 4 == 0:  # every 4th row is plenty to see what is drawn
            for x in range(0, stride, bpp * 2):
                px = bytes(row[x:x + 3])
                colours[px] = colours.get(px, 0) + 1
        prev = row
    total = sum(colours.values())
    background = max(colours.values())
    bad = []
    if len(colours) < 8:
        bad.append("'%s' is blank: %d distinct colours" % (path, len(colours)))
    if total - background < total // 100:
        bad.append("'%s' is blank: %.2f%% of the pixels differ from the background" %
                   (path, 100.0 * (total - background) / total))
    return bad


def main(argv):
    if len(argv) >= 3 and argv[1] == "dom":
        bad = check_dom(argv[2], argv[3:])
    elif len(argv) == 4 and argv[1] == "empty":
        bad = check_dom(argv[2], [argv[3]], want_empty=True)
    elif len(argv) == 3 and argv[1] == "net":
        bad = check_net(argv[2])
    elif len(argv) == 5 and argv[1] == "png":
        bad = check_png(argv[2], int(argv[3]), int(argv[4]))
    else:
        sys.stderr.write(__doc__)
        return 2
    for b in bad:
        sys.stderr.write("report-check: %s\n" % b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
