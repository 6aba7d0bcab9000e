#!/usr/bin/env python3
"""Draws the built-in sprite sheet: simple, clear icons for common IMDF amenity
categories plus fill patterns, as MapLibre sprites (PNG + JSON index), at pixel
ratios 1 and 2, into Sources/Styling/Resources/.

usage: scripts/make_sprite.py [OUT_DIR]      (needs Pillow: python3-pil)

Icons are drawn at 4x and downsampled, so both ratios are crisp. Names an
amenity category can use directly are listed as aliases of the same image.
"""
import json
import os
import sys

from PIL import Image, ImageDraw, ImageFont

SIZE = 24          # icon size in 1x pixels
SS = 4             # supersampling factor for drawing
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

BLUE, GREEN, RED, GREY, ORANGE, PURPLE = (46, 108, 182), (47, 133, 90), (198, 48, 48), (96, 104, 112), (214, 118, 28), (122, 82, 170)
WHITE = (255, 255, 255, 255)


def canvas(colour):
    s = SIZE * SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    m = SS  # 1 px margin
    d.rounded_rectangle([m, m, s - m - 1, s - m - 1], radius=5 * SS, fill=colour + (255,), outline=(255, 255, 255, 255), width=SS)
    return im, d


def u(v):
    return round(v * SS)


def person(d, cx, top, skirt=False):
    d.ellipse([u(cx - 1.6), u(top), u(cx + 1.6), u(top + 3.2)], fill=WHITE)
    if skirt:
        d.polygon([(u(cx), u(top + 3.6)), (u(cx + 3.2), u(top + 10)), (u(cx - 3.2), u(top + 10))], fill=WHITE)
    else:
        d.rectangle([u(cx - 2.2), u(top + 3.8), u(cx + 2.2), u(top + 10)], fill=WHITE)
    d.rectangle([u(cx - 1.6), u(top + 10), u(cx - 0.4), u(top + 14)], fill=WHITE)
    d.rectangle([u(cx + 0.4), u(top + 10), u(cx + 1.6), u(top + 14)], fill=WHITE)


def text(d, s, size, dy=0):
    f = ImageFont.truetype(FONT, u(size))
    box = d.textbbox((0, 0), s, font=f)
    w, h = box[2] - box[0], box[3] - box[1]
    d.text(((u(SIZE) - w) / 2 - box[0], (u(SIZE) - h) / 2 - box[1] + u(dy)), s, font=f, fill=WHITE)


def restroom():
    im, d = canvas(BLUE)
    person(d, 8, 4.5)
    person(d, 16, 4.5, skirt=True)
    d.line([u(12), u(5), u(12), u(19)], fill=WHITE, width=SS)
    return im


def elevator():
    im, d = canvas(GREY)
    d.rectangle([u(6), u(5), u(18), u(19)], outline=WHITE, width=u(1.5))
    d.polygon([(u(12), u(6.5)), (u(15.5), u(10.5)), (u(8.5), u(10.5))], fill=WHITE)
    d.polygon([(u(12), u(17.5)), (u(15.5), u(13.5)), (u(8.5), u(13.5))], fill=WHITE)
    return im


def stairs():
    im, d = canvas(GREY)
    pts = [(5, 18), (9, 18), (9, 14), (13, 14), (13, 10), (17, 10), (17, 6), (19, 6)]
    d.line([(u(x), u(y)) for x, y in pts], fill=WHITE, width=u(2), joint="curve")
    return im


def escalator():
    im, d = canvas(GREY)
    d.line([(u(5), u(18)), (u(9), u(18)), (u(16), u(8)), (u(19), u(8))], fill=WHITE, width=u(2.2), joint="curve")
    d.polygon([(u(14), u(17)), (u(19), u(17)), (u(19), u(12))], fill=WHITE)
    return im


def glyph(colour, char, size):
    """An icon that is one letter or sign on a coloured tile."""
    def draw():
        im, d = canvas(colour)
        text(d, char, size)
        return im
    return draw


def food():
    im, d = canvas(ORANGE)
    for x in (7, 9, 11):
        d.line([u(x), u(5), u(x), u(10)], fill=WHITE, width=u(1.2))
    d.rounded_rectangle([u(6.4), u(9), u(11.6), u(11.5)], radius=u(1), fill=WHITE)
    d.line([u(9), u(11), u(9), u(19)], fill=WHITE, width=u(1.8))
    d.ellipse([u(14), u(5), u(18), u(13)], fill=WHITE)
    d.line([u(16), u(12), u(16), u(19)], fill=WHITE, width=u(1.8))
    return im


def exit_():
    im, d = canvas(GREEN)
    d.rectangle([u(5), u(5), u(13), u(19)], outline=WHITE, width=u(1.5))
    d.line([u(10), u(12), u(19), u(12)], fill=WHITE, width=u(2))
    d.polygon([(u(19.5), u(12)), (u(16), u(8.5)), (u(16), u(15.5))], fill=WHITE)
    return im


def firstaid():
    im, d = canvas(RED)
    d.rectangle([u(10), u(5.5), u(14), u(18.5)], fill=WHITE)
    d.rectangle([u(5.5), u(10), u(18.5), u(14)], fill=WHITE)
    return im


def drinkingwater():
    im, d = canvas(BLUE)
    d.polygon([(u(12), u(4.5)), (u(17), u(13)), (u(7), u(13))], fill=WHITE)
    d.ellipse([u(7), u(9), u(17), u(19)], fill=WHITE)
    return im


def checkin():
    im, d = canvas(PURPLE)
    d.rounded_rectangle([u(6), u(9), u(18), u(18)], radius=u(1.5), outline=WHITE, width=u(1.6))
    d.rectangle([u(9.5), u(6), u(14.5), u(9)], outline=WHITE, width=u(1.4))
    d.line([u(6), u(13), u(18), u(13)], fill=WHITE, width=u(1.2))
    return im


def gate():
    im, d = canvas(PURPLE)
    # an aircraft seen from above
    d.polygon([(u(12), u(4)), (u(13.3), u(9)), (u(20), u(13)), (u(20), u(14.5)), (u(13.3), u(12.5)), (u(13), u(17)),
               (u(15.5), u(19)), (u(15.5), u(20)), (u(12), u(19)), (u(8.5), u(20)), (u(8.5), u(19)), (u(11), u(17)),
               (u(10.7), u(12.5)), (u(4), u(14.5)), (u(4), u(13)), (u(10.7), u(9))], fill=WHITE)
    return im


def baggage():
    im, d = canvas(PURPLE)
    d.rounded_rectangle([u(6), u(9), u(18), u(19)], radius=u(1.5), fill=WHITE)
    d.rectangle([u(9.5), u(5.5), u(14.5), u(9)], outline=WHITE, width=u(1.4))
    return im


def wheelchair():
    im, d = canvas(BLUE)
    d.ellipse([u(9), u(4), u(12), u(7)], fill=WHITE)
    d.line([(u(10.5), u(8)), (u(10.5), u(13)), (u(15), u(13)), (u(17), u(18))], fill=WHITE, width=u(1.8), joint="curve")
    d.arc([u(5), u(10), u(15), u(20)], start=100, end=360, fill=WHITE, width=u(1.6))
    return im


def babychanging():
    im, d = canvas(BLUE)
    d.ellipse([u(9), u(5), u(15), u(11)], fill=WHITE)
    d.rounded_rectangle([u(7), u(12), u(17), u(19)], radius=u(3), fill=WHITE)
    return im


def security():
    im, d = canvas(GREY)
    d.polygon([(u(12), u(4.5)), (u(18.5), u(7)), (u(18), u(13)), (u(12), u(19.5)), (u(6), u(13)), (u(5.5), u(7))], fill=WHITE)
    return im


def taxi():
    im, d = canvas(ORANGE)
    d.rounded_rectangle([u(5), u(11), u(19), u(17)], radius=u(1.5), fill=WHITE)
    d.polygon([(u(8), u(11)), (u(10), u(7)), (u(14), u(7)), (u(16), u(11))], fill=WHITE)
    d.ellipse([u(7), u(16), u(10), u(19)], fill=WHITE)
    d.ellipse([u(14), u(16), u(17), u(19)], fill=WHITE)
    return im


def poi():
    im, d = canvas(GREY)
    d.ellipse([u(8), u(8), u(16), u(16)], fill=WHITE)
    return im


def hatch(colour, spacing=8):
    """A tileable diagonal hatch pattern (fill-pattern)."""
    s = spacing * SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    for off in (-s, 0, s):
        d.line([(off, s), (off + s, 0)], fill=colour, width=SS)
    return im


ICONS = [
    ("restroom", restroom, ["restroom.female", "restroom.male", "restroom.unisex", "restroom.family", "restroom.transgender",
                            "restroom.wheelchair", "toilets", "shower", "mothersroom"]),
    ("elevator", elevator, []),
    ("stairs", stairs, ["steps"]),
    ("escalator", escalator, ["movingwalkway"]),
    ("information", glyph(BLUE, "i", 16), ["information.mufid", "informationdesk", "guestservices", "concierge"]),
    ("atm", glyph(GREEN, "$", 15), ["bank", "currencyexchange", "payphone"]),
    ("food", food, ["foodservice", "restaurant", "cafe", "coffee", "fastfood", "foodcourt", "vendingmachine"]),
    ("exit", exit_, ["entry", "entrance", "emergencyexit", "door"]),
    ("firstaid", firstaid, ["defibrillator", "medical", "pharmacy"]),
    ("drinkingwater", drinkingwater, ["drinkingfountain", "fountain"]),
    ("parking", glyph(BLUE, "P", 15), ["parkingbicycle", "parkingmotorcycle"]),
    ("checkin", checkin, ["checkin.selfservice", "checkin.desk", "ticketing", "ticketing.airline", "ticketing.shuttle", "businesscenter"]),
    ("boardinggate", gate, ["boardinggate.aircraft", "arrivalgate", "immigration"]),
    ("baggageclaim", baggage, ["baggagecarts", "baggagestorage", "lostandfound", "luggagelocker"]),
    ("wheelchair", wheelchair, ["wheelchairassist", "accessible"]),
    ("babychanging", babychanging, ["childplayarea", "nursery"]),
    ("security", security, ["security.checkpoint", "police"]),
    ("taxi", taxi, ["bus", "shuttle", "rentalcar"]),
    ("poi", poi, []),
]
PATTERNS = [("hatch", lambda: hatch((120, 112, 100, 150))), ("hatch-light", lambda: hatch((160, 150, 135, 110), 10))]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources", "Styling", "Resources")
    images = [(n, f(), a) for n, f, a in ICONS] + [(n, f(), []) for n, f in PATTERNS]
    for ratio in (1, 2):
        cols = 8
        cell = SIZE * ratio
        rows = (len(images) + cols - 1) // cols
        sheet = Image.new("RGBA", (cols * cell, rows * cell), (0, 0, 0, 0))
        index = {}
        for i, (name, im, aliases) in enumerate(images):
            w, h = im.size[0] // SS * ratio, im.size[1] // SS * ratio
            small = im.resize((w, h), Image.LANCZOS)
            x, y = (i % cols) * cell, (i // cols) * cell
            sheet.alpha_composite(small, (x, y))
            entry = {"x": x, "y": y, "width": w, "height": h, "pixelRatio": ratio}
            for n in [name] + aliases:
                index[n] = entry
        suffix = "" if ratio == 1 else "@2x"
        sheet.save(os.path.join(out, f"sprite{suffix}.png"), optimize=True)
        with open(os.path.join(out, f"sprite{suffix}.json"), "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)
            f.write("\n")
    print(f"wrote {len(images)} images ({sum(len(a) for _, _, a in images)} aliases) to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
