#!/usr/bin/env python3
"""Opens a built venue's preview page in headless Chromium and measures it.

    scripts/browser_test.py OUTPUT_DIR VENUE RESULT.json [--screenshots DIR]

Serves OUTPUT_DIR on 127.0.0.1 (a plain static server, as a user would), opens
VENUE/index.html with Selenium and the system chromium + chromedriver, waits for
MapLibre's `idle` after every change, takes screenshots and writes RESULT.json:

  errors        console errors (a 404 is allowed only for a tile file the build
                did not write: a blank tile it skipped)
  floors        per floor: footprint pixels of the vector view (fills and lines; labels,
                icons and dots hidden) and of the raster view at the same zoom, and
                their IoU (footprint = not the page's map background)
  floor_change  share of pixels that differ between two floors
                and, per category fill colour (food, shops, ...), its pixels in each view
  layer_toggle  room-fill pixels (plain and category fills) before and after unticking the Rooms checkbox
  clicked       the properties the page shows after clicking a room

Exit status 0 when it could measure (the XCTest judges the numbers), 77 when
chromium, chromedriver or selenium are missing, 1 on any other failure.
"""
import functools
import http.server
import io
import json
import os
import shutil
import sys
import threading
import time

try:
    import numpy
    from PIL import Image
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError as e:  # reported by the caller as a skip reason
    print(f"browser test: {e}", file=sys.stderr)
    sys.exit(77)

BACKGROUND = (0xE4, 0xE8, 0xEE)   # #map background in preview.html
ROOM_FILL = (0xF6, 0xEB, 0xDA)    # floor_rooms_[FLOOR] fill of the default style
# Its category-fill-colors: vector rooms take them from the tiles' fill_category.
CATEGORY_FILLS = {"food": (0xF9, 0xD2, 0xC0), "shops": (0xFB, 0xE1, 0xB5), "services": (0xDD, 0xE9, 0xD3),
                  "health": (0xD6, 0xEC, 0xE8), "leisure": (0xF4, 0xDA, 0xE6)}
ROOM_FILLS = [ROOM_FILL] + list(CATEGORY_FILLS.values())


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def serve(root):
    missing = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_error(self, code, message=None, explain=None):
            if code == 404:
                missing.append(self.path)
            super().send_error(code, message, explain)

    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=root))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, missing


def driver():
    for tool in ("chromium", "chromedriver"):
        if not shutil.which(tool):
            print(f"browser test: {tool} not installed", file=sys.stderr)
            sys.exit(77)
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
              "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
              "--force-device-scale-factor=1", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)


def wait_idle(d, timeout=60):
    """Waits until the page is ready and MapLibre fired `idle` after the last change."""
    end = time.time() + timeout
    while time.time() < end:
        if d.execute_script("return !!(window.venuetiles && window.venuetiles.ready && window.venuetiles.idle"
                            " && window.venuetiles.map.loaded() && window.venuetiles.map.areTilesLoaded())"):
            return
        time.sleep(0.1)
    raise TimeoutError("MapLibre did not become idle")


def act(d, script):
    d.execute_script("window.venuetiles.idle = false; " + script + "; window.venuetiles.map.triggerRepaint();")
    wait_idle(d)


def shot(d, path=None):
    png = d.find_element(By.ID, "map").screenshot_as_png
    if path:
        with open(path, "wb") as f:
            f.write(png)
    return Image.open(io.BytesIO(png)).convert("RGB")


def mask(img, colour=BACKGROUND, tolerance=12, equal=False):
    """Pixels near `colour` (equal=True) or not near it (the footprint on the background)."""
    a = numpy.asarray(img, dtype=numpy.int16)
    near = (numpy.abs(a - numpy.array(colour, dtype=numpy.int16)) <= tolerance).all(axis=2)
    return near if equal else ~near


def mask_any(img, colours, tolerance=3):
    m = mask(img, colours[0], tolerance, equal=True)
    for c in colours[1:]:
        m |= mask(img, c, tolerance, equal=True)
    return m


def count(m):
    return int(m.sum())


def iou(a, b):
    return float((a & b).sum()) / max(1, int((a | b).sum()))


LABELS = ["floor_labels_[FLOOR]", "floor_icons_[FLOOR]", "building_labels_[BUILDING]", "floor_amenities_[FLOOR]"]


def compare_floors(d, floors, modes, shot_path):
    """Footprint masks of every floor in each mode, and their IoU per floor.

    Fills only: labels, icons and dots are placed by each renderer's own rules
    (MapLibre's collision boxes are not ours); one zoom closer than the whole
    venue so that thin walkways are several pixels wide."""
    act(d, "const m = window.venuetiles.map; m.jumpTo({zoom: m.getZoom() + 1});"
           + "".join(f"window.venuetiles.setLayerVisible('{l}', false);" for l in LABELS))
    out, vector_masks = {}, {}
    for f in floors:
        entry = {}
        for mode in (m for m in ("vector", "raster") if m in modes):
            act(d, f"window.venuetiles.setFloor('{f}'); window.venuetiles.setMode('{mode}')")
            img = shot(d, shot_path(f"{f}-{mode}"))
            m = mask(img)
            entry[f"{mode}_pixels"] = count(m)
            for name, colour in CATEGORY_FILLS.items():
                entry[f"{mode}_{name}_pixels"] = count(mask(img, colour, tolerance=3, equal=True))
            entry["total_pixels"] = img.size[0] * img.size[1]
            if mode == "vector":
                vector_masks[f] = m
            elif f in vector_masks:
                entry["iou"] = iou(vector_masks[f], m)
        out[f] = entry
    return out, vector_masks


def click_and_toggle(d, shot_path, result):
    """Clicks the middle room pixel as a person would, reads the panel, then unticks Rooms."""
    rooms_before = mask_any(shot(d), ROOM_FILLS)
    if count(rooms_before):
        ys, xs = numpy.nonzero(rooms_before)
        x, y = int(xs[len(xs) // 2]), int(ys[len(ys) // 2])
        el = d.find_element(By.ID, "map")
        r = el.rect
        webdriver.ActionChains(d).move_to_element_with_offset(el, x - r["width"] / 2, y - r["height"] / 2).click().perform()
        time.sleep(0.3)
        result["clicked"] = d.execute_script("return window.venuetiles.selected || null")
        result["panel"] = d.find_element(By.ID, "props").text
    box = d.find_element(By.CSS_SELECTOR, '#legend input[data-layer="floor_rooms_[FLOOR]"]')
    d.execute_script("window.venuetiles.idle = false")
    box.click()
    wait_idle(d)
    after = shot(d, shot_path("rooms-hidden"))
    result["layer_toggle"] = {"rooms_before": count(rooms_before),
                              "rooms_after": count(mask_any(after, ROOM_FILLS)),
                              "checked_after": box.is_selected()}


def console_errors(d, root):
    """Severe console entries, except a 404 for a tile file the build did not write (a blank tile)."""
    out = []
    for e in d.get_log("browser"):
        if e.get("level") != "SEVERE":
            continue
        msg = e.get("message", "")
        # "http://127.0.0.1:PORT/venue/floor_0/png/21/1/2.png - Failed to load resource: ... 404"
        url = msg.split(" ")[0]
        if "404" in msg and url.startswith("http://127.0.0.1"):
            rel = url.split("/", 3)[3]
            if rel.endswith((".png", ".pbf")) and not os.path.exists(os.path.join(root, rel)):
                continue
        out.append(msg)
    return out


def run(d, url, root, venue, shots):
    def shot_path(name):
        return os.path.join(shots, f"{venue}-{name}.png") if shots else None

    result = {"screenshots": []}
    d.get(url)
    wait_idle(d, 120)
    # Hide the zoom buttons: they are not the map.
    d.execute_script("document.querySelectorAll('.maplibregl-ctrl').forEach(e => e.style.display = 'none')")
    floors = d.execute_script("return window.venuetiles.state.floors.floors.map(f => f.id)")
    modes = d.execute_script("return Array.from(document.querySelectorAll('#mode button')).map(b => b.dataset.mode)")
    result["modes"] = modes
    # Fit the venue, then a whole zoom so that raster tiles are drawn at their own size.
    act(d, "const m = window.venuetiles.map; m.fitBounds(window.venuetiles.state.floors.bounds, {animate: false, padding: 10});"
           " m.jumpTo({zoom: Math.floor(m.getZoom())})")
    result["zoom"] = d.execute_script("return window.venuetiles.map.getZoom()")
    default = d.execute_script("return window.venuetiles.state.floor")
    if shots:
        d.save_screenshot(shot_path("preview"))
        result["screenshots"].append(shot_path("preview"))
    result["floors"], vector_masks = compare_floors(d, floors, modes, shot_path)
    result["compare_zoom"] = d.execute_script("return window.venuetiles.map.getZoom()")
    if "vector" in modes:
        act(d, f"window.venuetiles.setFloor('{default}'); window.venuetiles.setMode('vector');"
               + "".join(f"window.venuetiles.setLayerVisible('{l}', true);" for l in LABELS))
        if len(floors) > 1:
            a, b = vector_masks[default], vector_masks[next(f for f in floors if f != default)]
            result["floor_change"] = float((a ^ b).sum()) / max(1, int((a | b).sum()))
        click_and_toggle(d, shot_path, result)
    result["page_errors"] = d.execute_script("return window.venuetiles.state.errors")
    result["errors"] = console_errors(d, root)
    return result


def main():
    root, venue, result_path = sys.argv[1], sys.argv[2], sys.argv[3]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    if shots:
        os.makedirs(shots, exist_ok=True)
    server, missing = serve(root)
    d = driver()
    try:
        result = run(d, f"http://127.0.0.1:{server.server_port}/{venue}/index.html", root, venue, shots)
        result["missing_requests"] = len(missing)
    finally:
        d.quit()
        server.shutdown()
    with open(result_path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(json.dumps({k: v for k, v in result.items() if k != "panel"}, sort_keys=True))


if __name__ == "__main__":
    main()
