"""Draws the barcode test images into the folder given: a QR code (also as a JPEG, as a phone
takes it: tag.jpg), a Code 128, both in one picture, and a picture without a code (also as
blank.jpg). The device tests and the end-to-end tests both draw with it. Uses PyPI's qrcode and python-barcode with Pillow
(scripts/setup.sh installs them)."""
import sys
from pathlib import Path

import barcode
import qrcode
from barcode.writer import ImageWriter
from PIL import Image

out = Path(sys.argv[1])
qr = qrcode.make("MI-HYD-00042", box_size=8, border=4).get_image().convert("RGB")
qr.save(out / "qr.png")
qr.save(out / "tag.jpg", quality=92)
code128 = barcode.get("code128", "PUMP-7731", writer=ImageWriter()).render().convert("RGB")
code128.save(out / "code128.png")
both = Image.new("RGB", (qr.width + code128.width + 40, max(qr.height, code128.height)), "white")
both.paste(qr, (0, 0))
both.paste(code128, (qr.width + 40, 0))
both.save(out / "both.png")
blank = Image.new("RGB", (320, 200), "white")
blank.save(out / "blank.png")
blank.save(out / "blank.jpg")
