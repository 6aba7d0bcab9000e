#!/usr/bin/env python3
"""Opens a built venue's preview page in headless Chromium and measures it.

    scripts/browser_test.py OUTPUT_DIR VENUE RESULT.json [--screenshots DIR] [--select [FLOOR]]

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
  selection     with --select: on FLOOR or the last building's first floor (a building floor when
                the build has them), picked by its button: selected-unit pixels before any click,
                after clicking a room and after clicking another unit (the first cleared), and
                the raster view of that floor

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
# Unit fills of the default style a click may land on: rooms, their category fills, other rooms.
UNIT_FILLS = ROOM_FILLS + [(0xEC, 0xE6, 0xDA)]
WALKWAY_FILL = (0xFF, 0xFF, 0xFF)    # floor_walkways_[FLOOR]: a unit too (the second click may land there)
SELECTED_FILL = (0x8D, 0xB8, 0xEA)   # floor_selected_unit_[FLOOR] fill of the default style


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


def inner_points(m, margin=4):
    """Pixels of mask m whose whole (2*margin+1)² neighbourhood is in m: a click there hits that fill."""
    inner = m.copy()
    for dy in range(-margin, margin + 1):
        for dx in range(-margin, margin + 1):
            inner &= numpy.roll(numpy.roll(m, dy, axis=0), dx, axis=1)
    # roll wraps around: nothing within the margin of the edges is inner.
    inner[:margin, :] = inner[-margin:, :] = False
    inner[:, :margin] = inner[:, -margin:] = False
    ys, xs = numpy.nonzero(inner)
    return list(zip(xs.tolist(), ys.tolist()))


def click_at(d, x, y):
    el = d.find_element(By.ID, "map")
    r = el.rect
    d.execute_script("window.venuetiles.idle = false")
    webdriver.ActionChains(d).move_to_element_with_offset(el, x - r["width"] / 2, y - r["height"] / 2).click().perform()
    time.sleep(0.3)
    d.execute_script("window.venuetiles.map.triggerRepaint()")
    wait_idle(d)


def select_units(d, shot_path, result, shots, floor=None):
    """Picks a floor by its button (default: the last building's first floor), clicks a room, then another unit."""
    groups = d.find_elements(By.CSS_SELECTOR, "#floors div[data-building]")
    if floor:
        target = d.find_element(By.CSS_SELECTOR, f'#floors button[data-floor="{floor}"]')
    else:
        target = (groups[-1] if groups else d.find_element(By.ID, "floors")).find_elements(By.TAG_NAME, "button")[0]
    floor = target.get_attribute("data-floor")
    d.execute_script("window.venuetiles.idle = false")
    target.click()
    act(d, "window.venuetiles.setMode('vector');" + "".join(f"window.venuetiles.setLayerVisible('{l}', false);" for l in LABELS))
    before = shot(d)
    units = numpy.zeros(before.size[::-1], dtype=bool)
    for c in UNIT_FILLS:
        units |= mask(before, c, tolerance=2, equal=True)
    points = inner_points(units)
    walkways = mask(before, WALKWAY_FILL, tolerance=2, equal=True)
    sel = {"floor": floor, "shown": d.execute_script("return window.venuetiles.state.floor"),
           "before": count(mask(before, SELECTED_FILL, tolerance=3, equal=True)), "unit_points": len(points)}
    if points:
        a = points[len(points) // 2]
        click_at(d, *a)
        first = shot(d, shot_path("selected"))
        if shots:
            # The whole page with labels, as docs/preview-selected.png shows it.
            act(d, "".join(f"window.venuetiles.setLayerVisible('{l}', true);" for l in LABELS))
            d.save_screenshot(shot_path("preview-selected"))
            result["screenshots"].append(shot_path("preview-selected"))
            act(d, "".join(f"window.venuetiles.setLayerVisible('{l}', false);" for l in LABELS))
        first_mask = mask(first, SELECTED_FILL, tolerance=3, equal=True)
        sel.update({"first_click": list(a), "first_state": d.execute_script("return window.venuetiles.selection"),
                    "first_pixels": count(first_mask), "first_at_click": bool(first_mask[a[1], a[0]]),
                    "first_properties": d.execute_script("return window.venuetiles.selected || null")})
        # The second click: on another unit (not under the first selection), the farthest from the first.
        others = [p for p in inner_points(units | walkways) if not first_mask[p[1], p[0]]] or points
        b = max(others, key=lambda p: (p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2)
        click_at(d, *b)
        second = mask(shot(d, shot_path("selected-second")), SELECTED_FILL, tolerance=3, equal=True)
        sel.update({"second_click": list(b), "second_state": d.execute_script("return window.venuetiles.selection"),
                    "second_pixels": count(second), "second_at_click": bool(second[b[1], b[0]]),
                    "first_cleared": not bool(second[a[1], a[0]])})
        # Raster view of the same floor: its own pyramid is drawn.
        act(d, "window.venuetiles.setMode('raster')")
        sel["raster_pixels"] = count(mask(shot(d)))
        sel["raster_layer_visible"] = d.execute_script(
            f"return window.venuetiles.map.getLayoutProperty('raster-{floor}', 'visibility') === 'visible'")
    act(d, "window.venuetiles.setMode('vector'); window.venuetiles.select(null);"
           + "".join(f"window.venuetiles.setLayerVisible('{l}', true);" for l in LABELS))
    result["selection"] = sel


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


def run(d, url, root, venue, shots, selecting=False):
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
        if selecting:
            select_units(d, shot_path, result, shots, selecting if isinstance(selecting, str) else None)
            act(d, f"window.venuetiles.setFloor('{default}')")
        click_and_toggle(d, shot_path, result)
    result["page_errors"] = d.execute_script("return window.venuetiles.state.errors")
    result["errors"] = console_errors(d, root)
    return result


def main():
    root, venue, result_path = sys.argv[1], sys.argv[2], sys.argv[3]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    # --select [FLOOR]: the selection check, on FLOOR or the last building's first floor.
    selecting = False
    if "--select" in sys.argv:
        i = sys.argv.index("--select")
        selecting = sys.argv[i + 1] if i + 1 < len(sys.argv) and not sys.argv[i + 1].startswith("--") else True
    if shots:
        os.makedirs(shots, exist_ok=True)
    server, missing = serve(root)
    d = driver()
    try:
        result = run(d, f"http://127.0.0.1:{server.server_port}/{venue}/index.html", root, venue, shots, selecting)
        result["missing_requests"] = len(missing)
    finally:
        d.quit()
        server.shutdown()
    with open(result_path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(json.dumps({k: v for k, v in result.items() if k != "panel"}, sort_keys=True))


if __name__ == "__main__":
    main()
