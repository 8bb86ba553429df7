"""The independent side of MIXLSForm's tests: openpyxl writes the workbooks MI reads, and reads
the workbooks MI writes, and prints what it read as JSON for the test to compare.

  xlsx_oracle.py make KIND OUT.xlsx       a fixture workbook (types, dates, dates1904, layout, tall, bench)
  xlsx_oracle.py hostile KIND OUT.xlsx    a damaged or hostile file (see HOSTILE)
  xlsx_oracle.py dump IN.xlsx             {"date1904", "sheets": [{"name", "merged", "bold", "hidden", "cells": [[row, col, kind, value]]}]}
  xlsx_oracle.py xlsx IN.xlsx OUTDIR      LibreOffice opens IN and saves it as .xlsx with its own writer; prints the path
  xlsx_oracle.py bench IN.xlsx RUNS       openpyxl's median seconds to load IN.xlsx and walk every cell
  xlsx_oracle.py csv IN.xlsx OUTDIR       LibreOffice converts the first sheet to CSV; prints the CSV's path

Cell kinds in a dump: s string, n number, b boolean, d date (ISO 8601, a time alone as HH:MM:SS),
e error. openpyxl's data_only=True reading is the reference: formulas give their cached value.
"""
import datetime
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
import zipfile

import openpyxl
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.styles import Font
from openpyxl.utils.datetime import CALENDAR_MAC_1904


def iso(value):
    if isinstance(value, datetime.datetime):
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond:
            text += ".%03d" % round(value.microsecond / 1000)
        return text
    if isinstance(value, datetime.date):
        return value.strftime("%Y-%m-%dT00:00:00")
    if isinstance(value, datetime.time):
        text = value.strftime("%H:%M:%S")
        if value.microsecond:
            text += ".%03d" % round(value.microsecond / 1000)
        return text
    raise TypeError(value)


def dump(path):
    book = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for sheet in book.worksheets:
        cells = []
        for (row, column), cell in sorted(sheet._cells.items()):
            value = cell.value
            if value is None:
                continue
            if cell.data_type == "e":
                cells.append([row, column, "e", value])
            elif isinstance(value, bool):
                cells.append([row, column, "b", value])
            elif isinstance(value, (int, float)):
                cells.append([row, column, "n", value])
            elif isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
                cells.append([row, column, "d", iso(value)])
            else:
                cells.append([row, column, "s", str(value)])
        bold = sorted(cell.coordinate for cell in sheet._cells.values() if cell.value is not None and cell.font.b)
        sheets.append({"name": sheet.title, "merged": sorted(str(r) for r in sheet.merged_cells.ranges),
                       "cells": cells, "bold": bold, "hidden": sheet.sheet_state != "visible"})
    return {"date1904": book.epoch == CALENDAR_MAC_1904, "sheets": sheets}


def rewrite(path, changes):
    """Replaces parts of the zip at path: changes maps a part name to new bytes, or to a function
    of the old bytes; None removes the part."""
    with zipfile.ZipFile(path) as book:
        parts = [(info, book.read(info.filename)) for info in book.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        for info, data in parts:
            change = changes.get(info.filename, data)
            if change is None:
                continue
            if callable(change):
                change = change(data)
            book.writestr(info.filename, change)


def make_types(out):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Types"
    sheet.append(["text", "integer", "decimal", "negative", "large", "true", "false", "accents"])
    sheet.append(["  padded  ", 42, 3.14159, -7.5, 12345678901234, True, False, "Ñandú — «más» 中文 ✓"])
    sheet.append(["line\nbreak", 0, 1e-7, -0.0001, 2 ** 53, "TRUE", "0", "&<>\"'"])
    sheet["A4"] = CellRichText(["plain ", TextBlock(InlineFont(b=True), "bold"), " and ",
                                TextBlock(InlineFont(i=True), "italic")])
    sheet["B4"] = "=1+1"  # a formula openpyxl writes without a cached value: empty when read
    sheet["C4"] = ""
    sheet.cell(row=5, column=1, value="after an empty-ish row")
    book.save(out)
    # Cells openpyxl cannot write: formula results (str, numbers, booleans, errors) with cached
    # values, inline strings with rich runs and a phonetic guide, cells and rows without r, and
    # an element prefix. The raw sheet is added as a second sheet.
    raw = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        '<x:dimension ref="A1:F3"/><x:sheetData>'
        '<x:row r="1">'
        '<x:c r="A1" t="str"><x:f>CONCAT("a","b")</x:f><x:v>ab</x:v></x:c>'
        '<x:c r="B1"><x:f>2*21</x:f><x:v>42</x:v></x:c>'
        '<x:c r="C1" t="b"><x:f>TRUE()</x:f><x:v>1</x:v></x:c>'
        '<x:c r="D1" t="e"><x:f>1/0</x:f><x:v>#DIV/0!</x:v></x:c>'
        '<x:c r="E1" t="inlineStr"><x:is><x:r><x:t xml:space="preserve">rich </x:t></x:r><x:r><x:rPr><x:b/></x:rPr><x:t>inline</x:t></x:r>'
        '<x:rPh sb="0" eb="1"><x:t>PHONETIC</x:t></x:rPh></x:is></x:c>'
        '<x:c r="F1" t="inlineStr"><x:is><x:t>A_x000D_B</x:t></x:is></x:c>'
        '</x:row>'
        '<x:row><x:c><x:v>1</x:v></x:c><x:c><x:v>2</x:v></x:c><x:c r="E2"><x:v>5</x:v></x:c></x:row>'
        '<x:row r="3"><x:c r="A3" t="e"><x:v>#N/A</x:v></x:c><x:c r="B3" t="str"><x:f>""</x:f><x:v></x:v></x:c>'
        '<x:c r="C3" s="0"/><x:c r="D3" t="n"><x:v>  12.5 </x:v></x:c></x:row>'
        '</x:sheetData></x:worksheet>')
    add_raw_sheet(out, "Raw cells", raw)


def add_raw_sheet(out, name, xml):
    def workbook(data):
        text = data.decode()
        return text.replace("</sheets>", f'<sheet xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" name="{name}" sheetId="99" r:id="rIdRaw"/></sheets>').encode()

    def rels(data):
        text = data.decode()
        return text.replace("</Relationships>",
                            '<Relationship Id="rIdRaw" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/raw.xml"/></Relationships>').encode()

    def types(data):
        return data.decode().replace("</Types>", '<Override PartName="/xl/worksheets/raw.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>').encode()

    rewrite(out, {"xl/workbook.xml": workbook, "xl/_rels/workbook.xml.rels": rels, "[Content_Types].xml": types})
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as book:
        book.writestr("xl/worksheets/raw.xml", xml)


DATE_FORMATS = [
    ("yyyy-mm-dd h:mm:ss", datetime.datetime(2024, 3, 5, 14, 30, 15)),
    ("DD/MM/YYYY", datetime.datetime(2023, 12, 31)),
    ("mmm d, yyyy", datetime.datetime(1999, 1, 1)),
    ('[$-409]mmmm d, yyyy;@', datetime.datetime(2020, 2, 29)),
    ("h:mm AM/PM", datetime.time(9, 45)),
    ("hh:mm:ss.000", datetime.datetime(2024, 6, 1, 23, 59, 59, 250000)),
    ("mm-dd-yy", datetime.datetime(1900, 1, 15)),
    ("d-mmm", datetime.datetime(1900, 2, 28)),
    ("yyyy-mm-dd", datetime.datetime(1900, 3, 1)),
    ('"Fecha:" dd/mm/yyyy', datetime.datetime(2026, 11, 26)),
]
NOT_DATES = [("0.00", 45000.5), ('"day" 0', 12), ("#,##0", 45000), ("General", 60), ('0 "h"', 3), ("[Red]0.0", 2.5)]


def make_dates(out, epoch=None):
    book = openpyxl.Workbook()
    if epoch:
        book.epoch = epoch
    sheet = book.active
    sheet.title = "Dates"
    for row, (number_format, value) in enumerate(DATE_FORMATS, start=1):
        sheet.cell(row=row, column=1, value=number_format)
        cell = sheet.cell(row=row, column=2, value=value)
        cell.number_format = number_format
    for row, (number_format, value) in enumerate(NOT_DATES, start=len(DATE_FORMATS) + 1):
        sheet.cell(row=row, column=1, value=number_format)
        cell = sheet.cell(row=row, column=2, value=value)
        cell.number_format = number_format
    book.save(out)


def make_layout(out):
    """Several sheets in non-alphabetical order, names with spaces and accents, sparse rows and
    cells, merged ranges, a hidden sheet."""
    book = openpyxl.Workbook()
    survey = book.active
    survey.title = "survey"
    survey["A1"], survey["B1"], survey["C1"] = "type", "name", "label::Español (es)"
    survey["A3"], survey["B3"], survey["C3"] = "text", "pump", "¿Bomba?"
    survey["E7"] = "far away"
    survey["AB12"] = "column AB"
    survey.merge_cells("A20:C21")
    survey["A20"] = "merged value"
    choices = book.create_sheet("choices")
    choices.append(["list_name", "name", "label"])
    choices.append(["yn", 1, "Sí"])
    choices.append([])
    choices.append(["yn", 0, "No"])
    accented = book.create_sheet("Ajustes y más")
    accented["B2"] = "settings"
    book.create_sheet("Ñandú & <2>")["A1"] = 1  # & and < are escaped in workbook.xml's name attribute
    empty = book.create_sheet("Aaa empty")
    empty.sheet_state = "hidden"
    book.save(out)


def make_tall(out, rows=100):
    """100 rows of data in a sheet whose dimension claims A1:Z1048576."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Tall"
    for row in range(1, rows + 1):
        sheet.append([f"row {row}", row, row * 0.5])
    book.save(out)
    rewrite(out, {"xl/worksheets/sheet1.xml":
                  lambda data: re.sub(rb'<dimension ref="[^"]*"\s*/>', b'<dimension ref="A1:Z1048576"/>', data)})


def make_bench(out, rows=2000):
    """Three sheets of `rows` rows, an XLSForm's shape: survey, choices, settings-like."""
    book = openpyxl.Workbook()
    survey = book.active
    survey.title = "survey"
    survey.append(["type", "name", "label::English (en)", "label::Español (es)", "label::Kiswahili (sw)",
                   "hint", "required", "relevant", "constraint", "calculation"])
    for row in range(rows):
        survey.append([f"select_one list{row % 200}", f"q{row}", f"Question {row}", f"Pregunta {row}",
                       f"Swali {row}", f"hint {row}", row % 2 == 0, f"${{q{max(row - 1, 0)}}} != ''",
                       f". > {row}", row * 1.5])
    choices = book.create_sheet("choices")
    choices.append(["list_name", "name", "label::English (en)", "label::Español (es)", "label::Kiswahili (sw)", "filter"])
    for row in range(rows):
        choices.append([f"list{row % 200}", row, f"Choice {row}", f"Opción {row}", f"Chaguo {row}", row % 7])
    other = book.create_sheet("data")
    for row in range(rows):
        other.append([row, datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=row), f"text {row}", row / 3,
                      True, "ünïcödé", row * 2, "x" * (row % 40)])
    book.save(out)


MINIMAL = {
    "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                           '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                           '<Default Extension="xml" ContentType="application/xml"/></Types>',
    "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
                       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
                       '<sheet name="survey" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                                  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
                                  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
    "xl/sharedStrings.xml": '<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>type</t></si><si><t>name</t></si></sst>',
    "xl/worksheets/sheet1.xml": '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
                                '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row></sheetData></worksheet>',
}


def sheet_with(cells):
    return ('<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
            f'<row r="1">{cells}</row></sheetData></worksheet>')


BILLION_LAUGHS = ('<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                  '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
                  '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&d;&d;&d;</t></si><si><t>name</t></si></sst>')

HOSTILE = {
    "missing-workbook": {"xl/workbook.xml": None},
    "missing-workbook-rels": {"xl/_rels/workbook.xml.rels": None},
    "missing-sheet": {"xl/worksheets/sheet1.xml": None},
    "no-sheets": {"xl/workbook.xml": MINIMAL["xl/workbook.xml"].replace('<sheet name="survey" sheetId="1" r:id="rId1"/>', "")},
    "unknown-relationship": {"xl/workbook.xml": MINIMAL["xl/workbook.xml"].replace('r:id="rId1"', 'r:id="rId9"')},
    "malformed-sheet": {"xl/worksheets/sheet1.xml": MINIMAL["xl/worksheets/sheet1.xml"][:-40]},
    "malformed-shared-strings": {"xl/sharedStrings.xml": "<sst><si><t>unclosed</si></sst>"},
    "entity-expansion": {"xl/sharedStrings.xml": BILLION_LAUGHS},
    "column-out-of-range": {"xl/worksheets/sheet1.xml": sheet_with('<c r="XFE1"><v>1</v></c>')},
    "row-out-of-range": {"xl/worksheets/sheet1.xml": sheet_with('<c r="A1048577"><v>1</v></c>').replace('<row r="1">', '<row r="1048577">')},
    "cell-out-of-order": {"xl/worksheets/sheet1.xml": sheet_with('<c r="B1"><v>1</v></c><c r="A1"><v>2</v></c>')},
    "bad-reference": {"xl/worksheets/sheet1.xml": sheet_with('<c r="1A"><v>1</v></c>')},
    "huge-shared-string-index": {"xl/worksheets/sheet1.xml": sheet_with('<c r="A1" t="s"><v>99999999999999999999999</v></c>')},
    "shared-string-index-past-end": {"xl/worksheets/sheet1.xml": sheet_with('<c r="A1" t="s"><v>2</v></c>')},
    "not-a-number": {"xl/worksheets/sheet1.xml": sheet_with('<c r="A1"><v>twelve</v></c>')},
    "not-a-boolean": {"xl/worksheets/sheet1.xml": sheet_with('<c r="A1" t="b"><v>yes</v></c>')},
    "duplicate-sheet-names": {"xl/workbook.xml": MINIMAL["xl/workbook.xml"].replace(
        "</sheets>", '<sheet name="SURVEY" sheetId="2" r:id="rId1"/></sheets>')},
}

# Workbooks of three sheets, each wrong in its own way: what is reported is what reading the sheets
# one at a time in tab order meets first.
SECOND_SHEETS = {
    "xl/workbook.xml": MINIMAL["xl/workbook.xml"].replace(
        "</sheets>", '<sheet name="choices" sheetId="2" r:id="rId3"/><sheet name="settings" sheetId="3" r:id="rId4"/></sheets>'),
    "xl/_rels/workbook.xml.rels": MINIMAL["xl/_rels/workbook.xml.rels"].replace(
        "</Relationships>",
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/>'
        '<Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet3.xml"/>'
        "</Relationships>"),
    "xl/worksheets/sheet2.xml": MINIMAL["xl/worksheets/sheet1.xml"],
    "xl/worksheets/sheet3.xml": MINIMAL["xl/worksheets/sheet1.xml"],
}
HOSTILE.update({
    # The second sheet out of place, the third malformed.
    "second-sheet-bad-cell": dict(SECOND_SHEETS, **{
        "xl/worksheets/sheet2.xml": sheet_with('<c r="B1"><v>1</v></c><c r="A1"><v>2</v></c>'),
        "xl/worksheets/sheet3.xml": MINIMAL["xl/worksheets/sheet1.xml"][:-40]}),
    # The first sheet malformed, the third missing from the zip.
    "first-sheet-malformed-third-missing": dict(SECOND_SHEETS, **{
        "xl/worksheets/sheet1.xml": MINIMAL["xl/worksheets/sheet1.xml"][:-40], "xl/worksheets/sheet3.xml": None}),
    # The third sheet's relationship unknown, the first and second fine.
    "third-sheet-unknown-relationship": dict(SECOND_SHEETS, **{
        "xl/workbook.xml": SECOND_SHEETS["xl/workbook.xml"].replace('r:id="rId4"', 'r:id="rId9"')}),
})


def write_parts(out, parts, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(out, "w", compression) as book:
        for name, data in parts.items():
            book.writestr(name, data)


def make_hostile(kind, out):
    if kind == "not-a-zip":
        with open(out, "w") as file:
            file.write("type,name,label\ntext,pump,Pump\n")
        return
    if kind == "empty-file":
        open(out, "w").close()
        return
    if kind == "truncated-zip":
        write_parts(out, MINIMAL)
        with open(out, "rb") as file:
            data = file.read()
        with open(out, "wb") as file:
            file.write(data[: len(data) // 2])
        return
    if kind.startswith("bomb"):
        # A sheet of 80 MiB of spaces and one real row: about 80 KiB deflated.
        parts = dict(MINIMAL)
        padding = " " * (80 << 20)
        parts["xl/worksheets/sheet1.xml"] = MINIMAL["xl/worksheets/sheet1.xml"].replace("<sheetData>", "<sheetData>" + padding)
        write_parts(out, parts)
        if kind == "bomb-lying-sizes":
            lie_about_sizes(out, "xl/worksheets/sheet1.xml")
        return
    if kind == "two-large-sheets":
        parts = dict(MINIMAL)
        padding = " " * (600 << 10)
        sheet = MINIMAL["xl/worksheets/sheet1.xml"].replace("<sheetData>", "<sheetData>" + padding)
        parts["xl/worksheets/sheet1.xml"] = sheet
        parts["xl/worksheets/sheet2.xml"] = sheet
        parts["xl/workbook.xml"] = MINIMAL["xl/workbook.xml"].replace("</sheets>", '<sheet name="two" sheetId="2" r:id="rId3"/></sheets>')
        parts["xl/_rels/workbook.xml.rels"] = MINIMAL["xl/_rels/workbook.xml.rels"].replace(
            "</Relationships>", '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>')
        write_parts(out, parts)
        return
    if kind == "corrupt-deflate":
        parts = dict(MINIMAL)
        write_parts(out, parts)
        damage(out, "xl/worksheets/sheet1.xml")
        return
    parts = dict(MINIMAL)
    for name, data in HOSTILE[kind].items():
        if data is None:
            parts.pop(name, None)
        else:
            parts[name] = data
    write_parts(out, parts)


def entry_offsets(data, name):
    """The local header offset of an entry, and the offset of its central directory record."""
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        info = book.getinfo(name)
    central = data.index(b"PK\x01\x02")
    encoded = name.encode()
    while True:
        name_length = int.from_bytes(data[central + 28: central + 30], "little")
        if data[central + 46: central + 46 + name_length] == encoded:
            return info.header_offset, central
        central = data.index(b"PK\x01\x02", central + 46)


def lie_about_sizes(out, name):
    """Claims the entry unpacks to 500 bytes, in its local header and its central directory record."""
    with open(out, "rb") as file:
        data = bytearray(file.read())
    local, central = entry_offsets(bytes(data), name)
    data[local + 22: local + 26] = (500).to_bytes(4, "little")
    data[central + 24: central + 28] = (500).to_bytes(4, "little")
    with open(out, "wb") as file:
        file.write(data)


def damage(out, name):
    """Overwrites the middle of an entry's deflated data."""
    with open(out, "rb") as file:
        data = bytearray(file.read())
    local, _ = entry_offsets(bytes(data), name)
    name_length = int.from_bytes(data[local + 26: local + 28], "little")
    extra_length = int.from_bytes(data[local + 28: local + 30], "little")
    compressed = int.from_bytes(data[local + 18: local + 22], "little")
    start = local + 30 + name_length + extra_length
    for offset in range(start + 2, start + min(compressed, 40)):
        data[offset] = 0xFF
    with open(out, "wb") as file:
        file.write(data)


def bench(path, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        book = openpyxl.load_workbook(path, data_only=True)
        count = 0
        for sheet in book.worksheets:
            for row in sheet.iter_rows(values_only=True):
                count += sum(1 for value in row if value is not None)
        times.append(time.perf_counter() - started)
    print(json.dumps({"median": statistics.median(times), "cells": count}))


def to_csv(path, outdir):
    outdir = os.path.abspath(outdir)
    profile = os.path.join(outdir, "libreoffice-profile")
    converted = subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
         "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76", "--outdir", outdir, path],
        capture_output=True, text=True, timeout=180)
    csv_path = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0] + ".csv")
    if converted.returncode != 0 or not os.path.exists(csv_path):
        sys.exit(f"libreoffice failed ({converted.returncode}): {converted.stdout} {converted.stderr}")
    print(csv_path)


def to_xlsx(path, outdir):
    outdir = os.path.abspath(outdir)
    profile = os.path.join(outdir, "libreoffice-profile")
    converted = subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "xlsx:Calc MS Excel 2007 XML",
         "--outdir", outdir, path],
        capture_output=True, text=True, timeout=180)
    out = os.path.join(outdir, os.path.basename(path))
    if converted.returncode != 0 or not os.path.exists(out):
        sys.exit(f"libreoffice failed ({converted.returncode}): {converted.stdout} {converted.stderr}")
    print(out)


MAKERS = {"types": make_types, "dates": make_dates, "dates1904": lambda out: make_dates(out, CALENDAR_MAC_1904),
          "layout": make_layout, "tall": make_tall, "bench": make_bench}

if __name__ == "__main__":
    command = sys.argv[1]
    if command == "make":
        MAKERS[sys.argv[2]](sys.argv[3])
    elif command == "hostile":
        make_hostile(sys.argv[2], sys.argv[3])
    elif command == "dump":
        print(json.dumps(dump(sys.argv[2]), ensure_ascii=False))
    elif command == "bench":
        bench(sys.argv[2], int(sys.argv[3]))
    elif command == "xlsx":
        to_xlsx(sys.argv[2], sys.argv[3])
    elif command == "csv":
        to_csv(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown command {command}")
