#!/usr/bin/env python3
"""The office in a real browser: headless Debian chromium driven through Selenium.

Run by OfficeBrowserTests.swift against a real mi-server (and by hand against `make demo OFFICE=1`
with --capture). The Swift test prepares the data with the real `mi` and passes what it made in
one JSON argument (--facts). Every step prints `ok   <step>` or `FAIL <step>: <what it saw>`,
a failing step saves a screenshot named after it, and the script goes on with the steps that do
not depend on it; the exit status is 0 only when every step passed, 1 otherwise, 2 when the
browser itself could not start.

Selenium gives no HTTP status, so statuses (403, the PDF, Range) are read with urllib carrying
the browser's own session cookie.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

COOKIE = "mi_office"
WIDTH, HEIGHT = 1280, 900
# A phone held upright (the issue's 390×844): every page must fit it too.
NARROW_WIDTH, NARROW_HEIGHT = 390, 844


class StepFailed(Exception):
    """A step saw something other than what it expected; the message says what."""


def check(condition, message):
    if not condition:
        raise StepFailed(message)


def type_into(element, text):
    element.clear()
    element.send_keys(text)


class Office:
    """A chromium session on the office, with the screenshots and the step log."""

    def __init__(self, base, profile, screenshots, prefix):
        self.base = base.rstrip("/")
        self.prefix = prefix
        self.screenshots = screenshots
        self.shots = 0
        self.failures = []
        self.passed = 0
        os.makedirs(screenshots, exist_ok=True)
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={WIDTH},{HEIGHT}", f"--user-data-dir={profile}",
                         "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                         "--autoplay-policy=no-user-gesture-required", "--lang=en-US"):
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        # Headless chromium's window includes room for its toolbar: fix the page's own size.
        self.resize(WIDTH, HEIGHT)
        self.driver.set_page_load_timeout(30)

    def resize(self, width, height):
        """The page's own size (a phone's is `mobile`: the viewport meta tag applies)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800})

    # -- the step log -------------------------------------------------------------------------

    def step(self, name, action, *arguments):
        """Runs one step; True when it passed, False when it failed (already reported)."""
        try:
            result = action(*arguments)
            self.passed += 1
            print(f"ok   {name}" + (f" ({result})" if isinstance(result, (str, int)) and result != "" else ""), flush=True)
            return True
        except StepFailed as failure:
            self.fail(name, str(failure))
        except (WebDriverException, urllib.error.URLError, OSError, subprocess.SubprocessError) as error:
            self.fail(name, f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}")
        except Exception as error:  # a bug in this script: say where
            self.fail(name, f"{type(error).__name__}: {error}\n{traceback.format_exc()}")
        return False

    def fail(self, name, seen):
        self.failures.append(name)
        where = self.where()
        print(f"FAIL {name}: {seen}\n     (at {where})", flush=True)
        self.screenshot("FAIL-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))

    def where(self):
        try:
            return f"{self.driver.current_url} — title {self.driver.title!r}"
        except WebDriverException:
            return "no page"

    def screenshot(self, label):
        self.shots += 1
        path = os.path.join(self.screenshots, f"{self.prefix}{self.shots:02d}-{label}.png")
        try:
            self.driver.save_screenshot(path)
        except WebDriverException as error:
            print(f"     (no screenshot {path}: {error})", flush=True)
        return path

    # -- pages ----------------------------------------------------------------------------------

    def open(self, path, label):
        self.driver.get(self.base + path)
        self.wait_loaded()
        self.screenshot(label)

    def follow(self, element, seconds=15):
        """Clicks a link or a submit button and waits until the page it leads to has replaced
        this one: right after the click the old page still says it is loaded."""
        self.driver.execute_script("document.documentElement.dataset.followed = 'yes'")
        element.click()
        WebDriverWait(self.driver, seconds).until(lambda d: d.execute_script(
            "return document.readyState === 'complete' && !document.documentElement.dataset.followed"))

    def wait_loaded(self, seconds=10):
        WebDriverWait(self.driver, seconds).until(
            lambda d: d.execute_script("return document.readyState") == "complete")

    def find(self, selector):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        check(found, f"no element {selector!r} on the page; it shows: {self.text()[:300]!r}")
        return found[0]

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self):
        try:
            return self.driver.find_element(By.TAG_NAME, "body").text
        except WebDriverException:
            return ""

    def cookie(self):
        return self.driver.get_cookie(COOKIE)

    def no_alert(self):
        try:
            alert = self.driver.switch_to.alert
            text = alert.text
            alert.dismiss()
            raise StepFailed(f"a JavaScript alert opened: {text!r}")
        except NoAlertPresentException:
            pass

    # -- HTTP with the browser's session --------------------------------------------------------

    def http(self, path, method="GET", data=None, headers=None, cookie=True):
        """(status, headers, body) of a request carrying the browser's session cookie (or the
        cookie value `cookie` names, when it is a string)."""
        request = urllib.request.Request(self.base + path if path.startswith("/") else path,
                                         data=data, method=method)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        if isinstance(cookie, str):
            request.add_header("Cookie", f"{COOKIE}={cookie}")
        else:
            session = self.cookie() if cookie else None
            if session:
                request.add_header("Cookie", f"{COOKIE}={session['value']}")
        opener = urllib.request.build_opener(NoRedirect())
        try:
            with opener.open(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    # -- sign-in --------------------------------------------------------------------------------

    def sign_in(self, user, password, label):
        self.open("/login", f"login-{label}")
        check(self.all("form#login"), f"no form#login at /login; the page shows: {self.text()[:300]!r}")
        type_into(self.find("input#user"), user)
        type_into(self.find("input#password"), password)
        self.follow(self.find("button#sign-in"))
        time.sleep(0.2)
        self.screenshot(f"after-sign-in-{label}")

    def sign_out(self):
        self.follow(self.find("button#sign-out"))
        self.screenshot("signed-out")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Statuses as the server sent them: a 303 to /login is not followed to a 200."""

    def redirect_request(self, *arguments, **keywords):
        return None


# ---- the steps --------------------------------------------------------------------------------


def wrong_password(office, user):
    office.sign_in(user, "not-the-password", "wrong-password")
    errors = [e for e in office.all(".error") if e.is_displayed() and e.text.strip()]
    check(errors, f"no visible .error after a wrong password; the page shows: {office.text()[:300]!r}")
    check(office.cookie() is None, f"a wrong password set the {COOKIE} cookie: {office.cookie()}")
    check("/login" in office.driver.current_url, f"a wrong password left /login for {office.driver.current_url}")
    return errors[0].text


def signed_in(office, user, password, label):
    office.sign_in(user, password, label)
    cookie = office.cookie()
    check(cookie is not None, f"no {COOKIE} cookie after signing in as {user}; the page shows: {office.text()[:300]!r}")
    check(cookie.get("httpOnly") is True, f"the {COOKIE} cookie is not HttpOnly: {cookie}")
    check(cookie.get("sameSite") == "Strict", f"the {COOKIE} cookie is not SameSite=Strict: {cookie}")
    check("/login" not in office.driver.current_url, f"still on {office.driver.current_url} after signing in")


def dashboard(office):
    office.open("/", "dashboard")
    check(office.all("button#sign-out"), "no button#sign-out on the dashboard")
    for link in ("a#nav-dashboard", "a#nav-submissions", "a#nav-templates"):
        check(office.all(f"nav {link}"), f"no nav {link} on the dashboard")
    meta = office.all('meta[name="csrf-token"]')
    check(meta and meta[0].get_attribute("content"), "no <meta name=\"csrf-token\"> with a token")
    check(office.http("/")[0] == 200, "GET / is not 200")


def rows(office):
    return office.all("table#submissions tr.submission")


def submissions_list(office, expected):
    office.open("/submissions", "submissions")
    office.find("form#filters")
    found = rows(office)
    check(len(found) == expected, f"{len(found)} rows in table#submissions, expected {expected}: "
                                  f"{[r.text for r in found]}")
    count = office.all("p#count")
    check(count and str(expected) in count[0].text, f"p#count does not say {expected}: "
                                                    f"{count[0].text if count else 'no p#count'!r}")
    return found


def apply_filters(office, label, user=None, q=None, template=None, dates=None):
    """Fills form#filters from the list page as a person would and applies it."""
    office.open("/submissions", f"submissions-before-{label}")
    if user is not None:
        menu = Select(office.find("select#user"))
        values = [o.get_attribute("value") for o in menu.options]
        check(user in values, f"select#user has no option with value {user!r}: {values}")
        menu.select_by_value(user)
    if template is not None:
        menu = Select(office.find("select#template"))
        values = [o.get_attribute("value") for o in menu.options]
        check(template in values, f"select#template has no option with value {template!r}: {values}")
        menu.select_by_value(template)
    if dates is not None:
        # A date field's typing depends on the locale; its value is always yyyy-mm-dd.
        for selector, value in zip(("input#from", "input#to"), dates):
            field = office.find(selector)
            check(field.get_attribute("type") == "date", f"{selector} is not type=date")
            office.driver.execute_script("arguments[0].value = arguments[1]", field, value or "")
    if q is not None:
        type_into(office.find("input#q"), q)
    office.follow(office.find("button#apply"))
    time.sleep(0.2)
    office.screenshot(f"submissions-{label}")


def filtered_by_technician(office, user, expected, display):
    apply_filters(office, f"user-{user}", user=user)
    check(f"user={user}" in office.driver.current_url, f"the filter is not in the address: {office.driver.current_url}")
    found = rows(office)
    check(len(found) == expected, f"user={user}: {len(found)} rows, expected {expected}: {[r.text for r in found]}")
    for row in found:
        technician = row.find_element(By.CSS_SELECTOR, "td.technician").text
        check(display in technician or user in technician,
              f"user={user}: a row's td.technician is {technician!r}")


def filtered_by_word(office, word, expected_rows, form):
    apply_filters(office, "q", q=word)
    found = rows(office)
    check(len(found) == expected_rows, f"q={word}: {len(found)} rows, expected {expected_rows}: {[r.text for r in found]}")
    check(all(form in r.text for r in found), f"q={word}: the rows are not {form!r}: {[r.text for r in found]}")
    apply_filters(office, "q-nothing", q=word + "zzqx")
    check(len(rows(office)) == 0, f"q={word}zzqx still finds {len(rows(office))} rows")


def filtered_by_template(office, template, expected):
    apply_filters(office, f"template-{template}", template=template)
    found = rows(office)
    check(len(found) == expected, f"template={template}: {len(found)} rows, expected {expected}")
    for row in found:
        cell = row.find_element(By.CSS_SELECTOR, "td.template").text
        check(cell.strip(), f"template={template}: an empty td.template in {row.text!r}")


def filtered_by_dates(office, total):
    today = time.time()
    yesterday, tomorrow = (time.strftime("%Y-%m-%d", time.gmtime(today + shift)) for shift in (-86400, 86400))
    apply_filters(office, "dates-from-tomorrow", dates=(tomorrow, None))
    check(f"from={tomorrow}" in office.driver.current_url, f"from= is not in the address: {office.driver.current_url}")
    check(len(rows(office)) == 0, f"from={tomorrow}: {len(rows(office))} rows, expected none")
    apply_filters(office, "dates-around-today", dates=(yesterday, tomorrow))
    check(len(rows(office)) == total, f"from={yesterday}&to={tomorrow}: {len(rows(office))} rows, expected {total}")


def technicians(office):
    return [r.find_element(By.CSS_SELECTOR, "td.technician").text for r in rows(office)]


def sorted_by_technician(office, total):
    office.open("/submissions", "submissions-to-sort")
    headers = [a for a in office.all("a.sort") if a.text.strip().lower().startswith("technician")]
    check(headers, f"no a.sort header 'Technician': {[a.text for a in office.all('a.sort')]}")
    office.follow(headers[0])
    office.screenshot("submissions-sorted")
    first = technicians(office)
    check(len(first) == total, f"sorted by technician: {len(first)} rows, expected {total}")
    check(first in (sorted(first), sorted(first, reverse=True)), f"not in technician order: {first}")
    headers = [a for a in office.all("a.sort") if a.text.strip().lower().startswith("technician")]
    office.follow(headers[0])
    office.screenshot("submissions-sorted-again")
    check(technicians(office) == list(reversed(first)), f"the second click did not reverse {first}: {technicians(office)}")


def paged(office, total):
    office.open("/submissions?limit=2", "submissions-page-1")
    first = [r.text for r in rows(office)]
    check(len(first) == 2, f"limit=2: {len(first)} rows")
    count = office.find("p#count").text
    check(f"1–2 of {total}" in count, f"p#count on the first page says {count!r}")
    check(not office.all("a#previous-page"), "a#previous-page on the first page")
    office.follow(office.find("a#next-page"))
    office.screenshot("submissions-page-2")
    second = [r.text for r in rows(office)]
    check(len(second) == total - 2, f"the next page has {len(second)} rows, expected {total - 2}")
    check(not set(first) & set(second), f"a row is on both pages: {first} / {second}")
    check(not office.all("a#next-page"), "a#next-page on the last page")
    count = office.find("p#count").text
    check(f"3–{total} of {total}" in count, f"p#count on the last page says {count!r}")
    office.follow(office.find("a#previous-page"))
    office.screenshot("submissions-previous-page")
    back = [r.text for r in rows(office)]
    check(back == first, f"a#previous-page shows {back}, the first page showed {first}")
    check("1–2 of" in office.find("p#count").text, f"p#count after Previous: {office.find('p#count').text!r}")


def one_meaning_per_word(office, facts):
    """Every chart and date filter says which day it goes by, and each offers the other."""
    office.open("/", "dashboard-by-upload")
    heading = office.find("#per-day h2").text
    check("uploaded" in heading, f"the dashboard's per-day heading does not say which day: {heading!r}")
    choose(office.find("select#count-by"), "submitted")
    office.follow(office.find("button#apply-count-by"))
    office.screenshot("dashboard-by-submission")
    check("by=submitted" in office.driver.current_url, f"Count by went to {office.driver.current_url}")
    heading = office.find("#per-day h2").text
    check("submitted" in heading, f"after Count by submitted the heading says {heading!r}")
    titles = [t.get_attribute("textContent") for t in office.all("#per-day svg g.day title")]
    check(any(t.endswith(f": {facts['total']} submitted") for t in titles), f"the day's bar says {titles[-3:]}")

    office.open(f"/templates/{facts['statsTemplate']}/stats", "statistics-by-submission")
    caption = office.find("#stats-summary figcaption").text
    check("submitted" in caption, f"the statistics' per-day caption: {caption!r}")
    labels = [l.text for l in office.all("form#stats-filters label")]
    check(any(l.startswith("Submitted from") for l in labels), f"the statistics' date filter does not say which day: {labels}")
    choose(office.find("form#stats-filters select#dates"), "uploaded")
    office.follow(office.find("button#apply-stats"))
    office.screenshot("statistics-by-upload")
    caption = office.find("#stats-summary figcaption").text
    check("uploaded" in caption, f"after Count by uploaded the caption says {caption!r}")
    check(f"{facts['statsForms']} forms" in office.find("#stats-total").text, "the statistics count changed with the day they go by")

    office.open("/submissions", "submissions-dates")
    labels = [l.text for l in office.all("form#filters label")]
    check(any(l.startswith("Uploaded from") for l in labels), f"the listing's date filter: {labels}")
    choose(office.find("form#filters select#dates"), "submitted")
    office.follow(office.find("button#apply"))
    labels = [l.text for l in office.all("form#filters label")]
    check(any(l.startswith("Submitted from") for l in labels), f"after dates=submitted the listing's filter says {labels}")
    check(len(rows(office)) == facts["total"], f"dates=submitted without a range lists {len(rows(office))}")


def simulated_switch(office, facts):
    """One switch hides simulated forms in the listing and in the statistics."""
    office.open("/submissions", "submissions-with-simulated")
    listed = len(rows(office))
    simulated = len(office.all("table#submissions tr.submission .badge.simulated"))
    check(simulated == facts["simulatedCount"], f"{simulated} rows marked simulated, expected {facts['simulatedCount']}")
    office.find("input#hide-simulated").click()
    office.follow(office.find("button#apply"))
    office.screenshot("submissions-simulated-hidden")
    check("simulated=hide" in office.driver.current_url, f"the switch went to {office.driver.current_url}")
    check(len(rows(office)) == listed - simulated, f"{len(rows(office))} rows with simulated forms hidden, expected {listed - simulated}")
    check(not office.all("table#submissions .badge.simulated"), "a simulated form is still listed")
    check(office.find("input#hide-simulated").is_selected(), "the switch does not stay on")

    office.open(f"/templates/{facts['simulatedTemplate']}/stats", "statistics-with-simulated")
    before = office.find("#stats-total").text
    office.find("input#hide-simulated").click()
    office.follow(office.find("button#apply-stats"))
    office.screenshot("statistics-simulated-hidden")
    after = office.find("#stats-total").text
    check(f"{facts['simulatedCount']} simulated form" in after and "hidden" in after,
          f"the statistics with simulated forms hidden say {after!r} (before: {before!r})")


def open_from_list(office, submission_id, form):
    office.open("/submissions", "submissions-to-open")
    links = [a for a in office.all("table#submissions tr.submission a.open")
             if submission_id in (a.get_attribute("href") or "") or form in a.text]
    check(links, f"no a.open to {submission_id} ({form}) in the list: "
                 f"{[a.get_attribute('href') for a in office.all('a.open')]}")
    office.follow(links[0])
    check(office.all("#submission-header"), f"no #submission-header after a.open; the page shows: {office.text()[:300]!r}")
    check(submission_id in office.driver.current_url, f"a.open led to {office.driver.current_url}")
    office.screenshot("submission")


def submission_header(office, facts):
    header = office.find("#submission-header").text
    for expected in (facts["templateTitle"], facts["technicianName"]):
        check(expected in header, f"#submission-header lacks {expected!r}: {header!r}")
    check(facts["form"] in office.text(), f"the form's name {facts['form']!r} is not on the page")
    questions = office.all("section.question[data-question-id]")
    ids = [q.get_attribute("data-question-id") for q in questions]
    check(ids == facts["questionIds"], f"section.question ids {ids}, expected {facts['questionIds']}")
    comments = " ".join(c.text for c in office.all("section.question .comment"))
    check(facts["word"].lower() in comments.lower(), f"the technician's comment with {facts['word']!r} is not in any .comment: {comments!r}")
    foreman = office.find("#foreman-comments").text
    check(facts["foremanComment"] in foreman, f"#foreman-comments lacks {facts['foremanComment']!r}: {foreman!r}")
    audit = office.find("#audit").text
    check("submitted" in audit.lower(), f"#audit does not show the submission: {audit[:300]!r}")


def photo_loaded(office):
    photo = office.find("a.full-size img.photo")
    WebDriverWait(office.driver, 10).until(lambda d: d.execute_script(
        "return arguments[0].complete", photo))
    width = office.driver.execute_script("return arguments[0].naturalWidth", photo)
    check(width and width > 0, f"img.photo did not load (naturalWidth {width}, src {photo.get_attribute('src')!r})")
    link = office.find("a.full-size").get_attribute("href") or ""
    status, headers, body = office.http(link)
    check(status == 200 and headers.get("Content-Type", "").startswith("image/"),
          f"a.full-size {link}: {status} {headers.get('Content-Type')}")
    return width


def media_ready(office, selector):
    element = office.find(selector)
    check(element.get_attribute("controls") is not None, f"{selector} has no controls")
    preload = element.get_attribute("preload")
    check(preload == "metadata", f"{selector} preload is {preload!r}, expected 'metadata'")
    deadline = time.time() + 10
    state = 0
    while time.time() < deadline:
        state = office.driver.execute_script("return arguments[0].readyState", element)
        if state >= 1:
            break
        time.sleep(0.2)
    error = office.driver.execute_script("return arguments[0].error && arguments[0].error.code", element)
    source = office.driver.execute_script("return arguments[0].currentSrc", element)
    check(state >= 1, f"{selector} readyState {state} after 10 s (error {error}, source {source!r})")
    duration = office.driver.execute_script("return arguments[0].duration", element)
    return f"readyState {state}, {duration:.1f} s" if isinstance(duration, (int, float)) else f"readyState {state}"


def no_value_cells_red(office, expected):
    cells = office.all("table.answer-grid td.no-value")
    check(len(cells) == expected, f"{len(cells)} td.no-value in table.answer-grid, expected {expected}")
    style = "var s = getComputedStyle(arguments[0]); return [s.borderTopColor, s.borderTopWidth, s.borderTopStyle," \
            " s.borderLeftColor, s.borderRightColor, s.borderBottomColor]"
    for cell in cells:
        color, width, line, *others = office.driver.execute_script(style, cell)
        check(color == "rgb(204, 0, 0)", f"td.no-value border colour {color}, expected rgb(204, 0, 0) (#c00)")
        check(width == "2px" and line == "solid", f"td.no-value border {width} {line}, expected 2px solid")
        check(all(other == color for other in others), f"td.no-value's four borders differ: {[color] + others}")
    for cell in office.all("table.answer-grid td:not(.no-value)")[:3]:
        color = office.driver.execute_script("return getComputedStyle(arguments[0]).borderTopColor", cell)
        check(color != "rgb(204, 0, 0)", "a cell that takes a value has the red border too")


def hostile_text(office, hostile):
    office.no_alert()
    page = office.text()
    for literal in hostile:
        check(literal in page, f"the answer {literal!r} is not shown as text; the page shows: {page[-500:]!r}")
    images = office.driver.execute_script(
        "return Array.from(document.images).map(i => i.getAttribute('src'))")
    check("x" not in images, f"the answer made an <img src=x> element: {images}")
    marker = office.driver.execute_script("return typeof window.__miHostile")
    check(marker == "undefined", "a <script> from an answer ran")
    scripts = office.driver.execute_script(
        "return Array.from(document.scripts).filter(s => s.textContent.includes('__miHostile')).length")
    check(scripts == 0, f"{scripts} <script> elements hold the answer's script")
    inline = office.driver.execute_script(
        "return document.querySelectorAll('[onerror], [onclick], [onload], [style]').length")
    check(inline == 0, f"{inline} elements with inline handlers or style= attributes")
    policy = office.http(office.driver.current_url)[1].get("Content-Security-Policy", "")
    check("script-src" in policy or "default-src" in policy, f"no strict Content-Security-Policy: {policy!r}")
    check("'unsafe-inline'" not in policy, f"the Content-Security-Policy allows inline code: {policy!r}")


def pdf_download(office, facts, folder):
    link = office.find("a#download-pdf").get_attribute("href") or ""
    check(link.endswith("/report.pdf"), f"a#download-pdf points to {link!r}")
    status, headers, body = office.http(link)
    check(status == 200, f"GET {link}: {status} {body[:200]!r}")
    check(body.startswith(b"%PDF"), f"GET {link} is not a PDF: {headers.get('Content-Type')} {body[:40]!r}")
    path = os.path.join(folder, "report.pdf")
    with open(path, "wb") as file:
        file.write(body)
    text = subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True, timeout=60)
    check(text.returncode == 0, f"pdftotext failed: {text.stderr.strip()}")
    # The title may wrap in the PDF: its first two words are enough beside the form's name.
    for expected in (facts["form"], " ".join(facts["templateTitle"].split()[:2])):
        check(expected in text.stdout, f"the PDF's text lacks {expected!r}: {text.stdout[:400]!r}")
    without = office.http(link, cookie=False)[0]
    check(without in (303, 401, 403), f"the PDF without a session: {without}")
    return f"{len(body)} bytes"


def other_downloads(office, facts):
    link = office.find("a#download-form").get_attribute("href") or ""
    status, _, body = office.http(link)
    check(status == 200, f"a#download-form {link}: {status}")
    form = json.loads(body)
    check(str(form.get("id", "")).lower() == facts["anaId"], f"form.json's id is {form.get('id')!r}")
    names = [a.get_attribute("href") or "" for a in office.all("a.media-download")]
    check(len(names) == 3, f"{len(names)} a.media-download links, expected 3 (photo, video, audio): {names}")
    video = [n for n in names if re.search(r"\.webm($|\?)", n)]
    check(video, f"no a.media-download for the .webm: {names}")
    status, headers, body = office.http(video[0], headers={"Range": "bytes=0-99"})
    check(status == 206 and len(body) == 100, f"Range bytes=0-99 of {video[0]}: {status}, {len(body)} bytes")
    check(body[:4] == b"\x1a\x45\xdf\xa3", "the video's first bytes are not WebM's")
    check(headers.get("Content-Range", "").startswith("bytes 0-99/"), f"Content-Range {headers.get('Content-Range')!r}")


# ---- layout at a desk's and a phone's width ---------------------------------------------------


FITS = "return [document.documentElement.scrollWidth, window.innerWidth]"
SIGN_OUT_BOX = """var b = document.getElementById('sign-out'); if (!b) { return null; }
var r = b.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom, r.width, window.innerWidth, window.innerHeight]"""
# The size a chart's text is drawn at: its font size in the chart's units times the chart's scale.
CHART_TEXT = """return Array.from(document.querySelectorAll('svg.chart text')).filter(function (t) {
  return t.textContent.trim() !== '' && t.getClientRects().length > 0;
}).map(function (t) {
  var svg = t.ownerSVGElement; var box = svg.viewBox.baseVal;
  var scale = box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
  return [parseFloat(getComputedStyle(t).fontSize) * scale, t.textContent.trim().slice(0, 30)];
})"""
LEGIBLE_PX = 9.5
# …and not blown up to headline size by a chart scaled to a wide column.
LARGEST_PX = 20


def check_layout(office, path, label, narrow):
    office.open(path, label)
    width, inner = office.driver.execute_script(FITS)
    check(width <= inner, f"{path} is {width} px wide in a window of {inner} px (a horizontal scrollbar)")
    box = office.driver.execute_script(SIGN_OUT_BOX)
    check(box is not None, f"{path} has no button#sign-out")
    left, right, top, bottom, button_width, inner_width, inner_height = box
    check(button_width > 0 and left >= 0 and right <= inner_width and top >= 0 and bottom <= inner_height,
          f"button#sign-out of {path} is off-screen at {left:.0f}–{right:.0f} × {top:.0f}–{bottom:.0f} in {inner_width}×{inner_height}")
    texts = office.driver.execute_script(CHART_TEXT)
    small = [t for t in texts if t[0] < LEGIBLE_PX]
    check(not small, f"{path}: chart text drawn smaller than {LEGIBLE_PX} px: {small[:5]}")
    large = [t for t in texts if t[0] > LARGEST_PX]
    check(not large, f"{path}: chart text blown up beyond {LARGEST_PX} px: {large[:5]}")
    return len(texts)


def pages_fit(office, facts, width, height, label):
    """Every page at `width`: no horizontal scrollbar, Sign out on the screen, chart text legible;
    at a phone's width the listing's rows are stacked and the dashboard's bars on the screen."""
    narrow = width < 800
    office.resize(width, height)
    saved_prefix = office.prefix
    if narrow:
        office.prefix = "phone-"
    try:
        pages = [("/", "dashboard"), ("/submissions", "submissions"), (f"/submissions/{facts['anaId']}", "submission"),
                 (f"/submissions/{facts['bobId']}", "submission-long-word"), ("/templates", "templates"),
                 (f"/templates/{facts['statsTemplate']}/stats", "statistics"), ("/templates/new", "editor"),
                 (f"/templates/{facts['statsTemplate']}/edit", "editor-existing"),
                 ("/no-such-page", "error-page")]
        charts = 0
        for path, name in pages:
            charts += check_layout(office, path, f"{label}-{name}", narrow)
        check(charts > 0, "no chart text was measured")
        if narrow:
            office.open("/submissions", f"{label}-submissions-stacked")
            cells = office.all("table#submissions tr.submission td")
            check(cells, "no rows in table#submissions")
            shown = office.driver.execute_script(
                "return Array.from(arguments[0]).map(function (c) { return [getComputedStyle(c).display,"
                " Math.round(c.getBoundingClientRect().left)]; })", cells[:7])
            check(all(display in ("block", "grid") for display, _ in shown), f"the listing's cells are not stacked: {shown}")
            check(len({left for _, left in shown}) == 1, f"a row's cells are not under each other: {shown}")
            headers = office.driver.execute_script(
                "var h = document.querySelector('table#submissions thead'); return h ? getComputedStyle(h).display : 'none'")
            check(headers == "none", f"the table's header row still shows ({headers}) above stacked rows")
            office.open("/", f"{label}-dashboard-bars")
            bars = office.driver.execute_script(
                "return Array.from(document.querySelectorAll('#per-template svg.chart rect.bar')).map(function (b) {"
                " var r = b.getBoundingClientRect(); return [r.left, r.right, r.width, window.innerWidth]; })")
            check(bars, "the dashboard has no bar per template")
            for left, right, bar_width, inner in bars:
                check(bar_width > 0 and left >= 0 and right <= inner, f"a dashboard bar at {left:.0f}–{right:.0f} of {inner}")
        return f"{len(pages)} pages at {width}×{height}"
    finally:
        office.prefix = saved_prefix
        office.resize(WIDTH, HEIGHT)


def sign_in_page_fits(office):
    """The sign-in page (nobody signed in yet) at a phone's width and a desk's."""
    saved_prefix = office.prefix
    try:
        for width, height, prefix in ((NARROW_WIDTH, NARROW_HEIGHT, "phone-"), (WIDTH, HEIGHT, saved_prefix)):
            office.resize(width, height)
            office.prefix = prefix
            office.open("/login", f"login-{width}")
            page_width, inner = office.driver.execute_script(FITS)
            check(page_width <= inner, f"/login is {page_width} px wide at {inner} px")
            button = office.find("button#sign-in").rect
            check(button["x"] >= 0 and button["x"] + button["width"] <= inner, f"button#sign-in is off-screen: {button}")
    finally:
        office.prefix = saved_prefix
        office.resize(WIDTH, HEIGHT)


def head_answers_as_get(office):
    for path in ("/", "/submissions", "/static/office.css", "/health", "/login"):
        get_status, get_headers, get_body = office.http(path)
        status, headers, body = office.http(path, method="HEAD")
        check(status == get_status, f"HEAD {path}: {status}, GET {get_status}")
        check(status in (200, 303), f"HEAD {path}: {status}")
        check(body == b"", f"HEAD {path} has a body of {len(body)} bytes")
        check(headers.get("Content-Type") == get_headers.get("Content-Type"),
              f"HEAD {path}: Content-Type {headers.get('Content-Type')!r}, GET {get_headers.get('Content-Type')!r}")
    length = office.http("/static/office.css", method="HEAD")[1].get("Content-Length")
    check(length == str(len(office.http("/static/office.css")[2])), f"HEAD's Content-Length {length!r} is not GET's")


def upload_keeps_the_token_out_of_the_address(office, folder):
    office.open("/templates", "templates-upload")
    form = office.find("form#upload")
    action = form.get_attribute("action") or ""
    check("_csrf" not in action, f"form#upload's action carries the token: {action!r}")
    check(form.find_elements(By.CSS_SELECTOR, "input[type=hidden][name=_csrf]"), "form#upload has no hidden _csrf field")
    path = os.path.join(folder, "upload-check.json")
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"id": "upload-check", "title": "Uploaded in the browser", "version": 1,
                   "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}]}, file)
    office.find("input#template-file").send_keys(path)
    office.follow(office.find("button#upload-template"))
    office.screenshot("templates-uploaded")
    url = office.driver.current_url
    check("published=upload-check" in url, f"the upload went to {url}; the page shows {office.text()[:300]!r}")
    history = office.driver.execute_script("return performance.getEntriesByType('navigation').map(function (e) { return e.name; })")
    check(all("_csrf" not in entry for entry in history + [url]), f"the token is in an address: {history} {url}")


def xlsform_uploads_with_its_csv(office, folder):
    """An XLSForm chosen together with the CSV its select_one_from_file names is published, and
    the version's (XLSForm) link downloads a workbook openpyxl reads with the question in it."""
    import io
    import openpyxl
    office.open("/templates", "templates-xlsform")
    workbook = openpyxl.Workbook()
    survey = workbook.active
    survey.title = "survey"
    for row in (["type", "name", "label", "choice_filter"], ["select_one region", "region", "Region"],
                ["select_one_from_file towns.csv", "town", "Town", "region = ${region}"]):
        survey.append(row)
    choices = workbook.create_sheet("choices")
    for row in (["list_name", "name", "label"], ["region", "n", "North"], ["region", "s", "South"]):
        choices.append(row)
    settings = workbook.create_sheet("settings")
    settings.append(["form_id", "version"])
    settings.append(["browser-xlsform", 1])
    form = os.path.join(folder, "browser-xlsform.xlsx")
    workbook.save(form)
    towns = os.path.join(folder, "towns.csv")
    with open(towns, "w", encoding="utf-8") as file:
        file.write("name,label,region\nn1,North town,n\ns1,South town,s\n")
    office.find("input#template-file").send_keys(form + "\n" + towns)
    office.follow(office.find("button#upload-template"))
    office.screenshot("templates-xlsform-uploaded")
    url = office.driver.current_url
    check("published=browser-xlsform" in url, f"the XLSForm upload went to {url}; the page shows {office.text()[:300]!r}")
    link = office.find('a.xlsform-download[href="/templates/browser-xlsform/versions/1/xlsform"]')
    check(link.get_attribute("download") == "browser-xlsform.v1.xlsx", f"the link downloads as {link.get_attribute('download')!r}")
    status, _, body = office.http("/templates/browser-xlsform/versions/1/xlsform")
    check(status == 200 and body[:2] == b"PK", f"GET the XLSForm: {status} {body[:40]!r}")
    rows = [[cell for cell in row] for row in openpyxl.load_workbook(io.BytesIO(body)).worksheets[0].iter_rows(values_only=True)]
    check(any(row[:2] == ["select_one town", "town"] for row in rows), f"the exported survey sheet: {rows}")


def post_without_csrf(office, page):
    check(office.cookie() is not None, "not signed in")
    for path, body, kind in (("/logout", b"", "application/x-www-form-urlencoded"),
                             ("/templates/publish", b"{}", "application/json")):
        status, _, answer = office.http(path, method="POST", data=body, headers={"Content-Type": kind})
        check(status == 403, f"POST {path} with the session but no CSRF token: {status} {answer[:200]!r}")
    # The refused sign-out signed nobody out.
    status = office.http(page)[0]
    check(status == 200, f"GET {page} after the refused POSTs: {status}")


def signed_out(office, page):
    copied = office.cookie()
    check(copied is not None, "not signed in before signing out")
    office.sign_out()
    check(office.cookie() is None, f"the {COOKIE} cookie is still there after button#sign-out")
    # A copy of the cookie taken before signing out no longer opens anything: the server ended the session.
    for path in ("/submissions", page):
        status, headers, _ = office.http(path, headers={"Accept": "text/html"}, cookie=copied["value"])
        check(status == 303 and "/login" in headers.get("Location", ""),
              f"GET {path} with the cookie copied before signing out: {status} {headers.get('Location')}")
    status = office.http("/api/v1/templates", headers={"Authorization": f"Bearer {copied['value']}"}, cookie=False)[0]
    check(status == 401, f"the signed-out token as a bearer token: {status}, expected 401")
    office.open(page, "after-sign-out")
    check("/login" in office.driver.current_url, f"{page} after signing out shows {office.driver.current_url}")
    check("next=" in office.driver.current_url, f"the way to /login does not keep next=: {office.driver.current_url}")


def technician_sees_own(office, facts):
    office.open(f"/submissions/{facts['anaId']}", "technician-own")
    check(office.all("#submission-header"), f"ana's own submission did not open: {office.text()[:300]!r}")
    status = office.http(f"/submissions/{facts['anaId']}")[0]
    check(status == 200, f"ana's own submission: {status}")
    office.open("/submissions", "technician-list")
    found = rows(office)
    check(len(found) == facts["anaCount"], f"ana's list has {len(found)} rows, expected only her {facts['anaCount']}")
    check(not any(facts["bobForm"] in r.text for r in found), "bob's submission is in ana's list")


def audit_log(office, user):
    """The foreman's Audit link opens /audit; the action filter keeps the failed sign-ins."""
    office.open("/", "audit-from")
    links = office.all("nav a#nav-audit")
    check(links, "no nav a#nav-audit for a foreman")
    office.follow(links[0])
    check(office.driver.current_url.endswith("/audit"), f"a#nav-audit went to {office.driver.current_url}")
    events = office.all("table#audit tr.event")
    check(events, "no tr.event in table#audit")
    actions = {e.find_element(By.CSS_SELECTOR, "td.action").text for e in events}
    check({"sign-in", "sign-in-failed", "submission-view"} <= actions, f"table#audit's actions: {sorted(actions)}")
    Select(office.find("select#action")).select_by_value("sign-in-failed")
    office.follow(office.find("button#apply"))
    failed = office.all("table#audit tr.event")
    check(failed, "the filter action=sign-in-failed shows no row")
    for event in failed:
        check(event.find_element(By.CSS_SELECTOR, "td.action").text == "sign-in-failed", f"a filtered row reads {event.text!r}")
    check(any(e.find_element(By.CSS_SELECTOR, "td.actor").text == user for e in failed),
          f"{user}'s wrong password is not listed: {[e.text for e in failed]}")


def technician_refused(office, path, label):
    status, _, body = office.http(path)
    check(status == 403, f"GET {path} as a technician: {status}, expected 403 ({body[:120]!r})")
    office.open(path, label)
    check(not office.all("#submission-header") and not office.all("#editor"),
          f"{path} shows the page to a technician")


def capture(office, user, password, out, page):
    """Signs in and saves a submission's page (the README's screenshot): `page`, else the first
    one listed. The media get up to 10 s to load; the picture is taken either way."""
    office.sign_in(user, password, "capture")
    check(office.cookie() is not None, f"could not sign in as {user}")
    if page:
        office.open(page, "capture-page")
    else:
        office.open("/submissions", "capture-list")
        links = office.all("table#submissions tr.submission a.open")
        check(links, "no submission to open")
        office.follow(links[0])
    office.find("#submission-header")
    loaded = "return Array.from(document.querySelectorAll('video, audio')).every(m => m.readyState >= 1)" \
             " && Array.from(document.images).every(i => i.complete)"
    deadline = time.time() + 10
    while time.time() < deadline and not office.driver.execute_script(loaded):
        time.sleep(0.2)
    office.driver.save_screenshot(out)
    return "media loaded" if office.driver.execute_script(loaded) else "media NOT loaded"


# ---- statistics (/templates/{id}/stats) -------------------------------------------------------


def statistics_linked(office, facts):
    office.open("/templates", "templates-for-stats")
    links = office.all(f"tr.template[data-template-id='{facts['statsTemplate']}'] a.statistics")
    check(links, f"no a.statistics in the row of {facts['statsTemplate']} on /templates")
    office.follow(links[0])
    check(office.driver.current_url.endswith(f"/templates/{facts['statsTemplate']}/stats"),
          f"a.statistics opened {office.driver.current_url}")
    office.screenshot("statistics")
    office.open("/", "dashboard-for-stats")
    check(office.all(f"a.statistics[href='/templates/{facts['statsTemplate']}/stats']"),
          "the dashboard has no link to the template's statistics")


def stats_sections(office):
    return {s.get_attribute("data-question-id"): s for s in office.all("section.question-stats")}


def statistics_charts(office, facts):
    office.open(f"/templates/{facts['statsTemplate']}/stats", "statistics-charts")
    check(office.all("form#stats-filters"), "no form#stats-filters")
    total = office.find("#stats-total").text
    check(f"{facts['statsForms']} forms" in total, f"#stats-total says {total!r}, expected {facts['statsForms']} forms")
    check(office.all("svg.chart-days polyline"), "no svg.chart-days polyline (forms per day)")
    sections = stats_sections(office)
    check(list(sections) == facts["questionIds"], f"section.question-stats in the page: {list(sections)}, expected {facts['questionIds']}")
    for question, section in sections.items():
        if question in facts.get("unchartedIds", []):
            check("photo" in section.text, f"the section of {question} does not count its photos: {section.text!r}")
            continue
        svgs = section.find_elements(By.CSS_SELECTOR, "svg.chart")
        check(svgs, f"the section of {question} has no svg.chart")
        for svg in svgs:
            box = svg.size
            check(box["width"] > 100 and box["height"] > 10, f"the chart of {question} is drawn {box['width']}×{box['height']}")
    for question, options in facts["optionCounts"].items():
        bars = sections[question].find_elements(By.CSS_SELECTOR, "svg.chart-options rect.bar")
        rows = sections[question].find_elements(By.CSS_SELECTOR, "table.options tbody tr")
        check(len(bars) == options == len(rows), f"{question}: {len(bars)} bars and {len(rows)} rows for {options} options")
    for question in facts["numericIds"]:
        bars = sections[question].find_elements(By.CSS_SELECTOR, "svg.chart-histogram rect.bar")
        bins = sections[question].find_elements(By.CSS_SELECTOR, "table.bins tbody tr")
        check(bars and len(bars) == len(bins), f"{question}: {len(bars)} histogram bars for {len(bins)} bins")
    # Every pump inspection heard "Humming": its bar is the longest, its row says all of them.
    noise = sections["noise"]
    rows = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[1].text
            for r in noise.find_elements(By.CSS_SELECTOR, "table.options tbody tr")}
    check(rows.get("Humming") == str(facts["statsForms"]), f"noise's table: {rows}")
    widths = [float(b.get_attribute("width")) for b in noise.find_elements(By.CSS_SELECTOR, "rect.bar")]
    check(widths[1] == max(widths) > 0 and widths[0] == 0, f"noise's bar widths {widths}")
    titles = [t.get_attribute("textContent") for t in noise.find_elements(By.CSS_SELECTOR, "svg g.option title")]
    check(any(t.startswith("Humming: ") and "100.0 %" in t for t in titles), f"noise's tooltips {titles}")
    return f"{len(sections)} questions charted"


def statistics_filtered(office, facts):
    office.open(f"/templates/{facts['statsTemplate']}/stats", "statistics-before-filter")
    choose(office.find("select#user"), "ana")
    choose(office.find("select#groupBy"), "noise")
    office.follow(office.find("button#apply-stats"))
    office.screenshot("statistics-filtered")
    url = office.driver.current_url
    check("user=ana" in url and "groupBy=noise" in url, f"the filter form went to {url}")
    total = office.find("#stats-total").text
    check(f"{facts['anaPumpForms']} form" in total, f"#stats-total for ana says {total!r}")
    groups = [g.get_attribute("data-group") for g in office.all("section.group")]
    check(len(groups) == facts["optionCounts"]["noise"] + 1 and groups[-1] == "Not answered",
          f"groups {groups}: every option of noise, then the forms that left it unanswered")


def statistics_print(office, facts):
    office.open(f"/templates/{facts['statsTemplate']}/stats", "statistics-print")
    office.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        check(not office.find("form#stats-filters").is_displayed(), "the filter form shows in print")
        fill = office.driver.execute_script(
            "return getComputedStyle(document.querySelector('section.question-stats svg.chart rect.bar')).fill")
        check(fill == "rgb(85, 85, 85)", f"a bar prints as {fill}, expected grey on white")
        check(office.find("section.question-stats").is_displayed(), "the questions do not print")
        office.screenshot("statistics-as-printed")
    finally:
        office.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def technician_statistics(office, facts):
    path = f"/templates/{facts['statsTemplate']}/stats"
    office.open(path, "technician-statistics")
    total = office.find("#stats-total").text
    check(f"{facts['anaPumpForms']} form" in total, f"ana's statistics count {total!r}")
    status = office.http(path + "?user=bob")[0]
    check(status == 403, f"ana asking for bob's statistics: {status}, expected 403")
    status = office.http(path + "?version=latest", headers={"Accept": "text/html"})[0]
    check(status == 400, f"version=latest: {status}, expected 400")


def run_all(office, facts, artifacts):
    office.step("the sign-in page fits 390×844 and 1280×900", sign_in_page_fits, office)
    office.step("a wrong password shows .error and sets no cookie", wrong_password, office, "fiona")
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    office.step("the dashboard opens with the nav and sign-out", dashboard, office)
    office.step("/templates and the dashboard link to the statistics", statistics_linked, office, facts)
    office.step("statistics: an svg per question, a bar per option and per bin", statistics_charts, office, facts)
    office.step("statistics: the GET filter form and group-by", statistics_filtered, office, facts)
    office.step("statistics print: no form, grey bars", statistics_print, office, facts)
    office.step(f"/submissions lists all {facts['total']}", submissions_list, office, facts["total"])
    office.step(f"filter user=ana shows her {facts['anaCount']}", filtered_by_technician,
                office, "ana", facts["anaCount"], facts["technicianName"])
    office.step(f"filter user=bob shows his {facts['bobCount']}", filtered_by_technician,
                office, "bob", facts["bobCount"], "Bob Stone")
    office.step(f"filter q={facts['word']} finds the one with the comment", filtered_by_word,
                office, facts["word"], 1, facts["form"])
    office.step("filter template=extinguisher-check", filtered_by_template, office, "extinguisher-check",
                facts["extinguisherCount"])
    office.step("filter by dates", filtered_by_dates, office, facts["total"])
    office.step("a.sort sorts by technician, twice reverses", sorted_by_technician, office, facts["total"])
    office.step("limit=2, a#next-page, a#previous-page and \"1–2 of 3\"", paged, office, facts["total"])
    if not office.step("a.open opens ana's pump inspection", open_from_list, office, facts["anaId"], facts["form"]):
        office.step("the submission opens by address", lambda: (
            office.open(f"/submissions/{facts['anaId']}", "submission"), office.find("#submission-header")))
    office.step("header, questions, comments, foreman comments, audit", submission_header, office, facts)
    office.step("img.photo loaded (naturalWidth > 0)", photo_loaded, office)
    office.step("video.media-video readyState >= 1", media_ready, office, "video.media-video")
    office.step("audio.media-audio readyState >= 1", media_ready, office, "audio.media-audio")
    office.step("td.no-value has the 2px solid #c00 border", no_value_cells_red, office, facts["noValueCells"])
    office.step("the hostile answer is text", hostile_text, office, facts["hostile"])
    office.step("the PDF downloads and pdftotext reads the form's name", pdf_download, office, facts, artifacts)
    office.step("form.json and the media download (Range on the video)", other_downloads, office, facts)
    office.step("HEAD answers as GET without a body", head_answers_as_get, office)
    office.step("charts and date filters say uploaded or submitted, and switch", one_meaning_per_word, office, facts)
    office.step("every page fits 1280×900", pages_fit, office, facts, WIDTH, HEIGHT, "wide")
    office.step("every page fits 390×844: stacked rows, bars on screen, legible charts", pages_fit, office, facts,
                NARROW_WIDTH, NARROW_HEIGHT, "narrow")
    office.step("the upload form sends its CSRF token in the body", upload_keeps_the_token_out_of_the_address,
                office, artifacts)
    office.step("an XLSForm uploads with its CSV and downloads as an XLSForm", xlsform_uploads_with_its_csv,
                office, artifacts)
    office.step("the audit log lists fiona's wrong password; the action filter keeps it", audit_log, office, "fiona")
    page = f"/submissions/{facts['anaId']}"
    office.step("a POST without the CSRF token is 403", post_without_csrf, office, page)
    office.step("button#sign-out signs out and ends the session on the server", signed_out, office, page)
    if office.cookie() is not None:
        print("     (still signed in as fiona: her cookie is dropped before ana signs in)", flush=True)
        office.driver.delete_all_cookies()
    if not office.step("ana (technician) signs in", signed_in, office, "ana", facts["anaPassword"], "ana"):
        return
    office.step("ana opens her own submission and lists only hers", technician_sees_own, office, facts)
    office.step("ana may not open bob's submission (403)", technician_refused, office,
                f"/submissions/{facts['bobId']}", "technician-other")
    office.step("ana may not open bob's media (403)", technician_refused, office,
                f"/api/v1/submissions/{facts['bobId']}/media/{facts['bobMedia']}", "technician-other-media")
    office.step("ana may not open the editor (403)", technician_refused, office, "/templates/new",
                "technician-editor")
    office.step("ana may not open the audit log (403)", technician_refused, office, "/audit", "technician-audit")
    office.step("ana's statistics are her own; bob's are 403", technician_statistics, office, facts)


# ---- the template editor ----------------------------------------------------------------------


def choose(select_element, wanted):
    """Selects the option whose value is `wanted`, else the one whose label reads like it."""
    menu = Select(select_element)
    values = [o.get_attribute("value") for o in menu.options]
    if wanted in values:
        menu.select_by_value(wanted)
        return
    words = re.sub(r"([a-z])([A-Z])", r"\1 \2", wanted).lower()
    labels = [o.text for o in menu.options]
    for option in menu.options:
        if words in option.text.lower() or words.replace(" ", "") in option.text.lower().replace(" ", ""):
            menu.select_by_visible_text(option.text)
            return
    raise StepFailed(f"no option {wanted!r} in the menu: values {values}, labels {labels}")


def problems(office):
    """The texts of ul#problems; the editor redraws the list after every check, so an item read
    while the answer of a check arrives may be gone: that is read as "not settled yet"."""
    try:
        return [li.text for li in office.all("ul#problems li") if li.text.strip()]
    except StaleElementReferenceException:
        return ["(ul#problems was being redrawn)"]


def wait_for(office, condition, seconds, message):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise StepFailed(message())


def editor_opens(office):
    office.open("/templates", "templates")
    office.find("table#templates")
    office.find("form#upload")
    office.open("/templates/new", "editor-empty")
    office.find("#editor")
    office.find("input#template-id")


def add_question(office, kind):
    before = len(office.all("div.q-editor"))
    choose(office.find("select#new-question-type"), kind)
    office.find("button#add-question").click()
    wait_for(office, lambda: len(office.all("div.q-editor")) > before, 5,
             lambda: f"button#add-question made no new div.q-editor ({before} before)")
    return office.all("div.q-editor")[-1]


def inside(question, selector):
    found = question.find_elements(By.CSS_SELECTOR, selector)
    check(found, f"the div.q-editor has no {selector!r}; it shows: {question.text[:200]!r}")
    return found


def empty_template_has_problems(office):
    type_into(office.find("input#template-id"), "")
    add_question(office, "trueFalse")
    found = wait_for(office, lambda: problems(office), 5,
                     lambda: "ul#problems stays empty for a template with no id and a question with no text")
    # Each problem shows at its field too: the template's id, the question's text.
    wait_for(office, lambda: office.all("div.q-editor p.field-problem") and office.all("input#template-id.has-problem"), 5,
             lambda: f"no p.field-problem in the question or at input#template-id; the side panel lists {problems(office)}")
    text_note = office.driver.execute_script(
        "var n = document.querySelector('div.q-editor input.q-text').nextElementSibling;"
        " return n && n.classList.contains('field-problem') ? n.textContent : null")
    check(text_note, "the empty question text has no p.field-problem right after its input")
    office.screenshot("editor-problems")
    inside(office.all("div.q-editor")[-1], "button.q-remove")[0].click()
    wait_for(office, lambda: not office.all("div.q-editor"), 5, lambda: "button.q-remove did not remove the question")
    return f"{len(found)} problems, e.g. {found[0]!r}; at the text: {text_note!r}"


def leave_editor(office, path, label):
    """Goes to `path` from an editor that may hold changes: its leave-the-page question, if the
    browser shows one (it may come a moment after the navigation starts), is answered "leave",
    and the step ends only once the new page has replaced the old one."""
    office.driver.execute_script("document.documentElement.dataset.leaving = 'yes'")
    try:
        office.driver.get(office.base + path)
    except WebDriverException:
        pass
    deadline = time.time() + 15
    while time.time() < deadline:
        try:
            office.driver.switch_to.alert.accept()
        except NoAlertPresentException:
            pass
        try:
            if office.driver.execute_script(
                    "return document.readyState === 'complete' && !document.documentElement.dataset.leaving"):
                break
        except WebDriverException:
            pass
        time.sleep(0.2)
    else:
        raise StepFailed(f"leaving the editor for {path} never loaded the new page")
    office.screenshot(label)


def leaving_warns(office):
    """The editor's beforeunload listener: True when leaving now would ask first."""
    return office.driver.execute_script(
        "var e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented;")


def existing_id_refused(office, existing):
    office.open("/templates/new", "editor-existing-id")
    before = json.loads(office.http(f"/api/v1/templates/{existing}")[2])
    type_into(office.find("input#template-id"), existing)
    type_into(office.find("input#template-title"), "Something else entirely")
    question = add_question(office, "shortAnswer")
    type_into(inside(question, "input.q-text")[0], "A different question")
    wait_for(office, lambda: any("this id exists — edit it instead?" in p for p in problems(office)), 5,
             lambda: f"ul#problems does not say the id exists: {problems(office)}")
    links = [a.get_attribute("href") for a in office.all("ul#problems a.edit-existing")]
    check(links and links[0].endswith(f"/templates/{existing}/edit"), f"the problem links to {links}")
    note = office.driver.execute_script(
        "var n = document.getElementById('template-id').nextElementSibling;"
        " return n && n.classList.contains('field-problem') ? n.textContent : null")
    check(note and "this id exists" in note, f"input#template-id has no p.field-problem saying so: {note!r}")
    office.screenshot("editor-existing-id-live")
    office.find("button#publish").click()
    wait_for(office, lambda: office.find("#publish-confirm").is_displayed(), 5, lambda: "no #publish-confirm after button#publish")
    office.find("button#publish-confirm-yes").click()
    result = wait_for(office, lambda: "Not published" in office.find("#publish-result").text and office.find("#publish-result").text, 10,
                      lambda: f"#publish-result says {office.find('#publish-result').text!r}")
    check("this id exists — edit it instead?" in result, f"#publish-result says {result!r}")
    check(office.all("#publish-result a.edit-existing"), "#publish-result has no link to edit the existing template")
    office.screenshot("editor-existing-id-refused")
    after = json.loads(office.http(f"/api/v1/templates/{existing}")[2])
    check(after == before, f"{existing} changed: version {before.get('version')} became {after.get('version')}")
    leave_editor(office, "/templates/new", "editor-empty-again")
    return result


def fill_options(question, labels):
    """Types the labels into input.q-option fields; button.q-add-option either adds a field or
    takes the typed label into the list (and empties the field): both are handled."""
    adds_fields = None
    for index, label in enumerate(labels):
        fields = question.find_elements(By.CSS_SELECTOR, "input.q-option")
        empty = [f for f in fields if not f.get_attribute("value")]
        if not empty:
            inside(question, "button.q-add-option")[0].click()
            time.sleep(0.1)
            after = question.find_elements(By.CSS_SELECTOR, "input.q-option")
            adds_fields = len(after) > len(fields)
            empty = [f for f in after if not f.get_attribute("value")]
            check(empty, f"button.q-add-option left no empty input.q-option (option {index + 1})")
        empty[0].send_keys(label)
    if adds_fields is False:
        inside(question, "button.q-add-option")[0].click()


def set_labels(question, noun, labels):
    """One input.q-row / input.q-column per label, added with button.q-add-… as needed."""
    def boxes():
        return question.find_elements(By.CSS_SELECTOR, f"input.q-{noun}")
    while len(boxes()) < len(labels):
        inside(question, f"button.q-add-{noun}")[0].click()
    while len(boxes()) > len(labels):
        question.find_elements(By.CSS_SELECTOR, f"button.q-{noun}-remove")[-1].click()
    for index, text in enumerate(labels):
        type_into(boxes()[index], text)


def option_values(question):
    return [o.get_attribute("value") for o in question.find_elements(By.CSS_SELECTOR, "input.q-option")]


def build_template(office, facts):
    type_into(office.find("input#template-id"), facts["templateId"])
    type_into(office.find("input#template-title"), facts["templateTitle"])

    choice = add_question(office, "multipleChoice")
    type_into(inside(choice, "input.q-id")[0], facts["choiceId"])
    type_into(inside(choice, "input.q-text")[0], "Where does the valve leak?")
    type_into(inside(choice, "textarea.q-help")[0], "Choose at most two places.")
    fill_options(choice, facts["options"])
    type_into(inside(choice, "input.q-max-answers")[0], "2")
    # Options move: the first one down, then back up.
    inside(choice, "button.q-option-down")[0].click()
    moved = option_values(choice)
    check(moved[:2] == [facts["options"][1], facts["options"][0]], f"after q-option-down the options are {moved}")
    inside(choice, "button.q-option-up")[1].click()
    check(option_values(choice) == facts["options"], f"after q-option-up the options are {option_values(choice)}")
    # The last option gets a name beside its label: answers store it, exports write it.
    if facts.get("optionName"):
        names = choice.find_elements(By.CSS_SELECTOR, "input.q-option-name")
        check(len(names) == len(facts["options"]), f"{len(names)} input.q-option-name for {len(facts['options'])} options")
        type_into(names[-1], facts["optionName"])

    table = add_question(office, "table")
    type_into(inside(table, "input.q-id")[0], facts["tableId"])
    type_into(inside(table, "input.q-text")[0], "Flange bolts torque (N·m)")
    # One input per label: a comma is part of the label, not a separator.
    set_labels(table, "row", facts["rows"])
    set_labels(table, "column", facts["columns"])
    cells = wait_for(office, lambda: len(table.find_elements(By.CSS_SELECTOR, "table.q-grid td.cell")) == 9
                     and table.find_elements(By.CSS_SELECTOR, "table.q-grid td.cell"), 5,
                     lambda: f"table.q-grid has {len(table.find_elements(By.CSS_SELECTOR, 'table.q-grid td.cell'))} td.cell, expected 9")
    heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "table.q-grid tr th") if th.text]
    check(heads == facts["columns"] + facts["rows"], f"the grid's headings are {heads}")
    columns = len(facts["columns"])
    for row, column in facts["noCells"]:
        cells[row * columns + column].click()
    marked = table.find_elements(By.CSS_SELECTOR, "table.q-grid td.cell.no-value")
    check(len(marked) == 2, f"{len(marked)} td.cell.no-value after two clicks, expected 2")
    color = office.driver.execute_script("return getComputedStyle(arguments[0]).borderTopColor", marked[0])
    check(color == "rgb(204, 0, 0)", f"a no-value cell in the editor's grid has border colour {color}")

    numeric = add_question(office, "numeric")
    type_into(inside(numeric, "input.q-id")[0], "pressure")
    type_into(inside(numeric, "input.q-text")[0], "Line pressure (bar)")
    integer = inside(numeric, "input.q-integer")[0]
    if not integer.is_selected():
        integer.click()
    type_into(inside(numeric, "input.q-min")[0], "0")
    type_into(inside(numeric, "input.q-max")[0], "40")
    # The numeric question goes above the table: reorder with button.q-up.
    inside(numeric, "button.q-up")[0].click()
    time.sleep(0.2)
    order = [q.find_element(By.CSS_SELECTOR, "input.q-id").get_attribute("value") for q in office.all("div.q-editor")]
    check(order == [facts["choiceId"], "pressure", facts["tableId"]], f"the questions' order after q-up is {order}")
    office.screenshot("editor-built")


def table_question(office):
    found = [q for q in office.all("div.q-editor") if q.get_attribute("data-type") == "table"]
    check(found, "no div.q-editor[data-type=table]")
    return found[0]


def no_value_positions(office):
    return sorted((int(c.get_attribute("data-row")), int(c.get_attribute("data-column")))
                  for c in table_question(office).find_elements(By.CSS_SELECTOR, "table.q-grid td.cell.no-value"))


def no_value_cells_follow_their_rows(office, facts):
    """A red cell belongs to its row and column: inserting, moving and removing rows and columns
    carries it along instead of leaving it at its old position."""
    start = sorted(tuple(cell) for cell in facts["noCells"])
    check(no_value_positions(office) == start, f"no-value cells at {no_value_positions(office)}, expected {start}")
    steps = [
        ("button.q-row-insert", 0, [(r + 1, c) for r, c in start], "a row inserted above the first"),
        ("button.q-row-remove", 0, start, "the inserted row removed"),
        ("button.q-row-down", 0, sorted([(1 if r == 0 else 0 if r == 1 else r, c) for r, c in start]), "the first row moved down"),
        ("button.q-row-up", 1, start, "and back up"),
        ("button.q-column-insert", 0, [(r, c + 1) for r, c in start], "a column inserted before the first"),
        ("button.q-column-remove", 0, start, "the inserted column removed"),
    ]
    for selector, index, expected, what in steps:
        table_question(office).find_elements(By.CSS_SELECTOR, selector)[index].click()
        time.sleep(0.1)
        seen = no_value_positions(office)
        check(seen == sorted(expected), f"{what}: no-value cells at {seen}, expected {sorted(expected)}")
    labels = [b.get_attribute("value") for b in table_question(office).find_elements(By.CSS_SELECTOR, "input.q-row")]
    check(labels == facts["rows"], f"the rows are {labels} after the moves")
    office.screenshot("editor-no-value-kept")


def duplicate_id_reported_while_text_empty(office, facts):
    question = add_question(office, "trueFalse")
    type_into(inside(question, "input.q-id")[0], facts["choiceId"])
    found = wait_for(office, lambda: [p for p in problems(office) if "duplicate question id" in p], 5,
                     lambda: f"a repeated id with an empty text is not reported: {problems(office)}")
    notes = [n.text for n in office.all("div.q-editor")[-1].find_elements(By.CSS_SELECTOR, "p.field-problem")]
    check(any("duplicate question id" in n for n in notes), f"the repeated id has no p.field-problem: {notes}")
    office.screenshot("editor-duplicate-id")
    inside(office.all("div.q-editor")[-1], "button.q-remove")[0].click()
    wait_for(office, lambda: not [p for p in problems(office) if "duplicate" in p], 5,
             lambda: f"the duplicate stays reported after removing it: {problems(office)}")
    return found[0]


def type_can_change(office):
    question = add_question(office, "shortAnswer")
    type_into(inside(question, "input.q-text")[0], "How many bolts?")
    choose(inside(question, "select.q-type-choice")[0], "numeric")
    changed = wait_for(office, lambda: office.all("div.q-editor")[-1].get_attribute("data-type") == "numeric"
                       and office.all("div.q-editor")[-1], 5, lambda: "select.q-type-choice did not make the question numeric")
    check(changed.find_elements(By.CSS_SELECTOR, "input.q-min"), "the numeric question has no input.q-min")
    text = changed.find_element(By.CSS_SELECTOR, "input.q-text").get_attribute("value")
    check(text == "How many bolts?", f"the text was lost when the type changed: {text!r}")
    inside(changed, "button.q-remove")[0].click()
    wait_for(office, lambda: len(office.all("div.q-editor")) == 3, 5, lambda: "the extra question was not removed")


def preview_and_no_problems(office, facts):
    wait_for(office, lambda: not problems(office), 5, lambda: f"ul#problems lists {problems(office)}")
    preview = wait_for(office, lambda: all(o in office.find("pre#preview").text for o in facts["options"])
                       and office.find("pre#preview").text, 5,
                       lambda: f"pre#preview lacks the options: {office.find('pre#preview').text[:400]!r}")
    check("Where does the valve leak?" in preview, f"pre#preview lacks the question: {preview[:300]!r}")
    check(not office.all("p.field-problem"), "a p.field-problem stays without problems")


def unsaved_changes_warn(office):
    check(leaving_warns(office) is True, "leaving the editor with an unpublished draft does not ask first (beforeunload)")


def confirm_publish(office):
    office.find("button#publish").click()
    wait_for(office, lambda: office.find("#publish-confirm").is_displayed(), 5, lambda: "no #publish-confirm after button#publish")
    check(not office.find("#publish-result").text.strip(), "button#publish published without asking")
    office.screenshot("editor-confirm")
    office.find("button#publish-confirm-yes").click()


def publish(office, facts):
    confirm_publish(office)
    result = wait_for(office, lambda: "…" not in office.find("#publish-result").text and office.find("#publish-result").text.strip(), 10,
                      lambda: "#publish-result stays empty after publishing")
    office.screenshot("editor-published")
    check("version 1" in result, f"#publish-result says {result!r}")
    check(not problems(office), f"ul#problems after publishing: {problems(office)}")
    check(leaving_warns(office) is False, "leaving right after publishing still asks")
    status, _, body = office.http(f"/templates/{facts['templateId']}/versions/1")
    check(status == 200, f"the published version: {status}")
    published = json.loads(body)
    table = [q for q in published["questions"] if q["id"] == facts["tableId"]][0]
    check(table["rows"] == facts["rows"] and table["columns"] == facts["columns"],
          f"published rows {table['rows']} and columns {table['columns']}")
    check(sorted(map(tuple, table["noCells"])) == sorted(map(tuple, facts["noCells"])), f"published noCells {table['noCells']}")
    if facts.get("optionName"):
        choice = [q for q in published["questions"] if q["id"] == facts["choiceId"]][0]
        expected = facts["options"][:-1] + [{"name": facts["optionName"], "label": facts["options"][-1]}]
        check(choice["options"] == expected, f"published options {choice['options']}")
    return result


def second_publish_does_nothing(office, facts):
    confirm_publish(office)
    result = wait_for(office, lambda: "Not published" in office.find("#publish-result").text and office.find("#publish-result").text, 10,
                      lambda: f"#publish-result after a second publish: {office.find('#publish-result').text!r}")
    check("nothing to publish" in result, f"#publish-result says {result!r}")
    status = office.http(f"/templates/{facts['templateId']}/versions/2")[0]
    check(status == 404, f"an identical version 2 was made ({status})")
    office.open("/templates", "templates-after-publish")
    row = office.find(f"tr.template[data-template-id='{facts['templateId']}']")
    newest = row.find_element(By.CSS_SELECTOR, "td.newest").text
    check(newest == "1", f"the newest version listed is {newest!r}")
    return result


def run_editor(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    if not office.step("/templates and the editor open", editor_opens, office):
        return
    office.step("an empty template gets problems, at their fields too; q-remove removes", empty_template_has_problems, office)
    office.step("a new template with an existing id is refused, live and at publish", existing_id_refused,
                office, facts["existingTemplate"])
    if not office.step("7 options reordered, Max-answers 2, a 3×3 table with a comma in a label and 2 no-value cells, "
                       "a numeric moved up", build_template, office, facts):
        return
    office.step("no-value cells stay with their rows and columns", no_value_cells_follow_their_rows, office, facts)
    office.step("a repeated id is reported while its text is empty", duplicate_id_reported_while_text_empty, office, facts)
    office.step("a question's type changes", type_can_change, office)
    office.step("no problems and the preview shows the options", preview_and_no_problems, office, facts)
    office.step("leaving with unpublished changes asks first", unsaved_changes_warn, office)
    office.step("button#publish asks, then publishes", publish, office, facts)
    office.step("a second publish makes no identical version", second_publish_does_nothing, office, facts)
    office.step("the editor at a phone's width fits", lambda: (
        office.resize(NARROW_WIDTH, NARROW_HEIGHT), check_layout(office, f"/templates/{facts['templateId']}/edit",
                                                                 "editor-phone", True), office.resize(WIDTH, HEIGHT)))


# ---- the editor's generic settings: every key drawn from the registry --------------------------


def setting(question, key):
    """The input of a question's setting by its data-key (the key's logical name)."""
    found = question.find_elements(By.CSS_SELECTOR, f"div.q-fields > [data-key='{key}']")
    check(found, f"the div.q-editor has no input with data-key {key!r}; it shows: {question.text[:200]!r}")
    return found[0]


def note_after(office, node):
    """The text of the p.field-problem right after `node`, or None."""
    return office.driver.execute_script(
        "var n = arguments[0].nextElementSibling;"
        " return n && n.classList.contains('field-problem') ? n.textContent : null", node)


def set_setting(node, value):
    """Ticks a checkbox to `value` (a bool), chooses in a menu, or types into a text or number input."""
    if node.get_attribute("type") == "checkbox":
        if node.is_selected() != bool(value):
            node.click()
    elif node.tag_name == "select":
        choose(node, value)
    else:
        type_into(node, str(value))


def problem_at(office, question_index, key, text):
    """Waits until the check names `text` at the setting `key` of the question at `question_index`."""
    def found():
        node = setting(office.all("div.q-editor")[question_index], key)
        note = note_after(office, node)
        return note if note and text in note else None
    return wait_for(office, found, 5, lambda: f"no p.field-problem with {text!r} after data-key {key!r}; "
                                              f"ul#problems lists {problems(office)}")


def build_generic_template(office, facts):
    office.open("/templates/new", "generic-empty")
    type_into(office.find("input#template-id"), facts["templateId"])
    type_into(office.find("input#template-title"), facts["templateTitle"])
    # The template's own flags, drawn from Template.editorFields.
    for key in facts["templateFlags"]:
        flag = office.find(f"#template-settings input[data-key='{key}']")
        check(flag.get_attribute("type") == "checkbox" and flag.get_attribute("data-input") == "flag",
              f"the template's {key} is not a checkbox")
        flag.click()
    notes = []
    for index, spec in enumerate(facts["questions"]):
        question = add_question(office, spec["type"])
        type_into(inside(question, "input.q-id")[0], spec["id"])
        type_into(inside(question, "input.q-text")[0], spec["text"])
        if spec.get("options"):
            fill_options(question, spec["options"])
        for key, kind in spec.get("inputs", {}).items():
            node = setting(question, key)
            check(node.get_attribute("data-input") == kind,
                  f"{spec['id']}.{key} is drawn as {node.get_attribute('data-input')!r}, expected {kind!r}")
        # A wrong value first: the live check names it beside its input; then the right ones.
        for bad in spec.get("bad", []):
            set_setting(setting(question, bad["key"]), bad["value"])
            for key, value in bad.get("with", {}).items():
                set_setting(setting(question, key), value)
            notes.append(problem_at(office, len(office.all("div.q-editor")) - 1, bad["at"], bad["message"]))
        for key, value in spec["settings"].items():
            set_setting(setting(office.all("div.q-editor")[-1], key), value)
    office.screenshot("generic-built")
    # The check of the last keystroke, not one from before it (the editor waits 300 ms to send it).
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 5,
             lambda: f"ul#problems lists {problems(office)}")
    check(not office.all("p.field-problem"), "a p.field-problem stays without problems")
    preview = office.find("pre#preview").text
    for spec in facts["questions"]:
        if spec.get("previewed") is False:  # hidden (a calculation) or not relevant yet
            continue
        check(spec["text"] in preview, f"pre#preview lacks {spec['text']!r}: {preview[:400]!r}")
    return "; ".join(notes)


def generic_published(office, facts):
    confirm_publish(office)
    result = wait_for(office, lambda: "…" not in office.find("#publish-result").text and office.find("#publish-result").text.strip(), 10,
                      lambda: "#publish-result stays empty after publishing")
    check("version 1" in result, f"#publish-result says {result!r}")
    status, _, body = office.http(f"/templates/{facts['templateId']}/versions/1")
    check(status == 200, f"the published version: {status}")
    published = json.loads(body)
    for key in facts["templateFlags"]:
        check(published.get(key) is True, f"published {key} {published.get(key)!r}")
    for spec in facts["questions"]:
        question = [q for q in published["questions"] if q["id"] == spec["id"]][0]
        for key, value in spec["published"].items():
            check(question.get(key) == value, f"published {spec['id']}.{key} is {question.get(key)!r}, expected {value!r}")
    return result


def generic_read_back(office, facts):
    """The editor opened on the published version shows every setting as it was typed."""
    leave_editor(office, f"/templates/{facts['templateId']}/edit", "generic-read-back")
    wait_for(office, lambda: len(office.all("div.q-editor")) == len(facts["questions"]), 5,
             lambda: f"the editor shows {len(office.all('div.q-editor'))} questions")
    for key in facts["templateFlags"]:
        check(office.find(f"#template-settings input[data-key='{key}']").is_selected(), f"{key} is not ticked when read back")
    for index, spec in enumerate(facts["questions"]):
        question = office.all("div.q-editor")[index]
        for key, value in spec["settings"].items():
            node = setting(question, key)
            shown = node.is_selected() if node.get_attribute("type") == "checkbox" else node.get_attribute("value")
            expected = value if isinstance(value, bool) else str(value)
            check(shown == expected, f"{spec['id']}.{key} reads back as {shown!r}, expected {expected!r}")
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 5,
             lambda: f"the published template read back has problems: {problems(office)}")
    check(leaving_warns(office) is False, "the template read back counts as changed")


def generic_republished(office, facts):
    """An existing template opened in the editor, its title changed and published again: what
    the editor has no input for (an option's attributes) goes back as it came."""
    again = facts["republish"]
    leave_editor(office, f"/templates/{again['id']}/edit", "republish-open")
    wait_for(office, lambda: office.all("div.q-editor") and office.find("#editor").get_attribute("data-checked") == "true"
             and not problems(office), 10, lambda: f"{again['id']} read into the editor has problems: {problems(office)}")
    type_into(office.find("input#template-title"), again["title"])
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 5,
             lambda: f"the retitled draft has problems: {problems(office)}")
    confirm_publish(office)
    result = wait_for(office, lambda: "…" not in office.find("#publish-result").text and office.find("#publish-result").text.strip(), 10,
                      lambda: "#publish-result stays empty after publishing")
    check("version 2" in result, f"#publish-result says {result!r}")
    return result


def run_generic_editor(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    if not office.step("settings drawn from the registry, checked live at their inputs", build_generic_template, office, facts):
        return
    if not office.step("published with every setting", generic_published, office, facts):
        return
    if not office.step("read back into the editor", generic_read_back, office, facts):
        return
    if facts.get("republish"):
        office.step("an existing template edited and published again", generic_republished, office, facts)


# ---- groups and repeats in the editor ---------------------------------------------------------


def group_box(office, group_id):
    """The div.g-editor whose id input holds `group_id` (found again after every redraw)."""
    box = office.driver.execute_script(
        "return Array.from(document.querySelectorAll('div.g-editor')).find("
        "(b) => b.querySelector(':scope > div.g-fields > input.g-id').value === arguments[0]) || null", group_id)
    check(box, f"no div.g-editor with id {group_id!r}; the editor shows: {office.text()[:300]!r}")
    return box


def question_box(office, question_id):
    box = office.driver.execute_script(
        "return Array.from(document.querySelectorAll('div.q-editor')).find("
        "(b) => b.querySelector('input.q-id').value === arguments[0]) || null", question_id)
    check(box, f"no div.q-editor with id {question_id!r}")
    return box


def group_setting(box, key):
    found = box.find_elements(By.CSS_SELECTOR, f":scope > div.g-fields > [data-key='{key}']")
    check(found, f"the div.g-editor has no input with data-key {key!r}; it shows: {box.text[:200]!r}")
    return found[0]


def add_group(office, kind, inside_group=None):
    """Adds a group or a repeat at the end of the template, or of the group `inside_group`;
    returns its div.g-editor (the editor puts the focus in its id)."""
    if inside_group is None:
        office.find(f"button#add-{kind}").click()
    else:
        group_box(office, inside_group).find_element(By.CSS_SELECTOR, f":scope > div.g-add > button.add-{kind}").click()
    box = wait_for(office, lambda: office.driver.execute_script(
        "var a = document.activeElement; return a && a.classList.contains('g-id') ? a.closest('div.g-editor') : null"), 5,
        lambda: f"button add-{kind} made no div.g-editor with the focus in its id")
    check(box.get_attribute("data-kind") == kind, f"the new group is a {box.get_attribute('data-kind')!r}, not a {kind!r}")
    return box


def add_question_in(office, group_id, kind):
    """Adds a question of `kind` at the end of the group `group_id`; returns its div.q-editor."""
    box = group_box(office, group_id)
    before = len(box.find_elements(By.CSS_SELECTOR, ":scope > div.g-items > div.q-editor"))
    choose(box.find_element(By.CSS_SELECTOR, ":scope > div.g-add > select.g-new-type"), kind)
    box.find_element(By.CSS_SELECTOR, ":scope > div.g-add > button.g-add-question").click()
    found = wait_for(office, lambda: len(group_box(office, group_id).find_elements(
        By.CSS_SELECTOR, ":scope > div.g-items > div.q-editor")) > before and group_box(office, group_id), 5,
        lambda: f"button.g-add-question added no question to {group_id}")
    return found.find_elements(By.CSS_SELECTOR, ":scope > div.g-items > div.q-editor")[-1]


def ids_in(office, group_id):
    """The ids of the questions and groups directly in `group_id`, in order."""
    return office.driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll(':scope > div.g-items > div')).map("
        "(b) => (b.querySelector(':scope > div.g-fields > input.g-id') || b.querySelector('input.q-id')).value)",
        group_box(office, group_id))


def top_ids(office):
    """The ids of the template's top-level questions and groups, in order."""
    return office.driver.execute_script(
        "return Array.from(document.querySelectorAll('#questions > div')).map("
        "(b) => (b.querySelector(':scope > div.g-fields > input.g-id') || b.querySelector('input.q-id')).value)")


def all_ids(office):
    return office.driver.execute_script(
        "return Array.from(document.querySelectorAll('input.q-id, input.g-id')).map((i) => i.value)")


def set_question(office, box, spec):
    type_into(inside(box, "input.q-id")[0], spec["id"])
    box = question_box(office, spec["id"])
    type_into(inside(box, "input.q-text")[0], spec["text"])
    for key, value in spec.get("settings", {}).items():
        set_setting(setting(box, key), value)
    return box


def build_groups(office, facts):
    office.open("/templates/new", "groups-empty")
    type_into(office.find("input#template-id"), facts["templateId"])
    type_into(office.find("input#template-title"), facts["templateTitle"])
    for spec in facts["topQuestions"]:
        set_question(office, add_question(office, spec["type"]), spec)
    notes = []
    for group in facts["groups"]:
        box = add_group(office, group["kind"], group.get("in"))
        fresh = box.find_element(By.CSS_SELECTOR, ":scope > div.g-fields > input.g-id").get_attribute("value")
        check(fresh and all_ids(office).count(fresh) == 1, f"the new {group['kind']}'s id {fresh!r} is not unique among {all_ids(office)}")
        type_into(box.find_element(By.CSS_SELECTOR, ":scope > div.g-fields > input.g-id"), group["id"])
        box = group_box(office, group["id"])
        for key, value in group.get("settings", {}).items():
            type_into(group_setting(box, key), value)
        for bad in group.get("bad", []):
            type_into(group_setting(group_box(office, group["id"]), bad["key"]), bad["value"])
            # Named live in the side panel (the repeat and the key) and beside the input.
            listed = wait_for(office, lambda: [p for p in problems(office) if bad["listed"] in p and bad["message"] in p], 5,
                              lambda: f"ul#problems does not name {bad['listed']!r} with {bad['message']!r}: {problems(office)}")
            note = wait_for(office, lambda: note_after(office, group_setting(group_box(office, group["id"]), bad["key"])), 5,
                            lambda: f"no p.field-problem after the {bad['key']} of {group['id']}")
            check(bad["message"] in note, f"the note beside {bad['key']} says {note!r}")
            office.screenshot("groups-bad-count")
            notes.append(listed[0])
            type_into(group_setting(group_box(office, group["id"]), bad["key"]), bad["fixed"])
        for spec in group["questions"]:
            added = add_question_in(office, group["id"], spec["type"])
            given = added.find_element(By.CSS_SELECTOR, "input.q-id").get_attribute("value")
            check(all_ids(office).count(given) == 1, f"the new question's id {given!r} is not unique among {all_ids(office)}")
            set_question(office, added, spec)
    # Moved within its repeat: the last question of the repeat goes up, before the first.
    moved = facts["moveUp"]
    before = ids_in(office, moved["in"])
    inside(question_box(office, moved["id"]), "button.q-up")[0].click()
    after = wait_for(office, lambda: ids_in(office, moved["in"]) != before and ids_in(office, moved["in"]), 5,
                     lambda: f"button.q-up did not move {moved['id']} within {moved['in']}: {ids_in(office, moved['in'])}")
    check(after == moved["order"], f"{moved['in']} holds {after} after moving {moved['id']} up, expected {moved['order']}")
    # Out of its group (just after it), then into the group right above it again.
    out = facts["moveOut"]
    inside(question_box(office, out["id"]), "button.q-out")[0].click()
    wait_for(office, lambda: top_ids(office) == out["top"], 5,
             lambda: f"button.q-out: the top level holds {top_ids(office)}, expected {out['top']}")
    into = inside(question_box(office, out["id"]), "button.q-into")[0]
    check(out["from"] in into.text, f"button.q-into says {into.text!r}, expected the group above, {out['from']!r}")
    into.click()
    wait_for(office, lambda: ids_in(office, out["from"]) == [out["id"]] and out["id"] not in top_ids(office), 5,
             lambda: f"button.q-into: {out['from']} holds {ids_in(office, out['from'])}, the top level {top_ids(office)}")
    # A repeat inside the repeat: nested in the draft's JSON and in the preview.
    nested = facts["nested"]
    check(nested["id"] in ids_in(office, nested["in"]), f"{nested['id']} is not inside {nested['in']}: {ids_in(office, nested['in'])}")
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 8,
             lambda: f"ul#problems lists {problems(office)}")
    preview = office.find("pre#preview").text
    for line in facts["previewLines"] + [nested["preview"]]:
        check(line in preview, f"pre#preview lacks {line!r}: {preview[:1200]!r}")
    office.screenshot("groups-built")
    return "; ".join(notes)


def group_removed_with_its_questions(office, facts):
    nested = facts["nested"]
    questions = len(office.all("div.q-editor"))
    box = group_box(office, nested["id"])
    inner = len(box.find_elements(By.CSS_SELECTOR, "div.q-editor"))
    box.find_element(By.CSS_SELECTOR, ":scope > div.q-head > button.g-remove").click()
    confirm = group_box(office, nested["id"]).find_element(By.CSS_SELECTOR, ":scope > div.g-confirm")
    check(confirm.is_displayed(), "button.g-remove removed nothing and asked nothing")
    question = confirm.find_element(By.CSS_SELECTOR, "p").text
    check(nested["id"] in question and f"{inner} question" in question, f"the confirmation says {question!r}")
    office.screenshot("groups-remove-confirm")
    # Cancel keeps it; yes removes it with its questions.
    confirm.find_element(By.CSS_SELECTOR, "button.g-remove-no").click()
    check(not group_box(office, nested["id"]).find_element(By.CSS_SELECTOR, ":scope > div.g-confirm").is_displayed(),
          "Cancel left the confirmation open")
    group_box(office, nested["id"]).find_element(By.CSS_SELECTOR, ":scope > div.q-head > button.g-remove").click()
    group_box(office, nested["id"]).find_element(By.CSS_SELECTOR, ":scope > div.g-confirm button.g-remove-yes").click()
    wait_for(office, lambda: nested["id"] not in all_ids(office), 5, lambda: f"{nested['id']} is still there")
    check(len(office.all("div.q-editor")) == questions - inner,
          f"{len(office.all('div.q-editor'))} questions left, expected {questions - inner}")
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 8,
             lambda: f"ul#problems lists {problems(office)}")
    check(nested["preview"] not in office.find("pre#preview").text, "the removed repeat is still in the preview")
    return question


def published_version(office, facts, version):
    confirm_publish(office)
    result = wait_for(office, lambda: "…" not in office.find("#publish-result").text and office.find("#publish-result").text.strip(), 10,
                      lambda: "#publish-result stays empty after publishing")
    check(f"version {version}" in result, f"#publish-result says {result!r}")
    status, _, body = office.http(f"/templates/{facts['templateId']}/versions/{version}")
    check(status == 200, f"version {version}: {status}")
    return json.loads(body)


def groups_published(office, facts):
    published = published_version(office, facts, 1)
    shape = facts["published"]

    def outline(items):
        return [[i["id"], i["type"], outline(i["questions"])] if i["type"] in ("group", "repeat") else i["id"] for i in items]
    check(outline(published["questions"]) == shape, f"published as {outline(published['questions'])}, expected {shape}")
    groups = {i["id"]: i for i in published["questions"] if i["type"] in ("group", "repeat")}
    for group in facts["groups"]:
        if group.get("in") or group["id"] not in groups:
            continue
        for key, value in group.get("published", {}).items():
            check(groups[group["id"]].get(key) == value, f"{group['id']}.{key} published as {groups[group['id']].get(key)!r}")
    return json.dumps(outline(published["questions"]))


def groups_round_trip(office, facts):
    """Opened again, retitled and published: the structure is the same JSON."""
    leave_editor(office, f"/templates/{facts['templateId']}/edit", "groups-reopened")
    wait_for(office, lambda: office.all("div.g-editor") and office.find("#editor").get_attribute("data-checked") == "true"
             and not problems(office), 10, lambda: f"the published template read back has problems: {problems(office)}")
    check(leaving_warns(office) is False, "the template read back counts as changed")
    type_into(office.find("input#template-title"), facts["templateTitle"] + ", again")
    wait_for(office, lambda: office.find("#editor").get_attribute("data-checked") == "true" and not problems(office), 8,
             lambda: f"the retitled draft has problems: {problems(office)}")
    office.screenshot("groups-reopened")
    second = published_version(office, facts, 2)
    first = json.loads(office.http(f"/templates/{facts['templateId']}/versions/1")[2])
    for version in (first, second):
        version.pop("title")
        version.pop("version")
    check(first == second, f"version 2 differs from version 1 beyond its title:\n{json.dumps(first, sort_keys=True)}\n"
                           f"{json.dumps(second, sort_keys=True)}")


def groups_fit_a_phone(office, facts):
    """The editor with a group and a repeat at a phone's width: no horizontal scrollbar."""
    office.resize(NARROW_WIDTH, NARROW_HEIGHT)
    try:
        leave_editor(office, f"/templates/{facts['templateId']}/edit", "groups-phone-open")
        wait_for(office, lambda: office.all("div.g-editor") and office.find("#editor").get_attribute("data-checked") == "true", 10,
                 lambda: "the editor drew no div.g-editor at a phone's width")
        width, inner = office.driver.execute_script(FITS)
        office.screenshot("groups-phone")
        check(width <= inner, f"the editor is {width} px wide in a window of {inner} px (a horizontal scrollbar)")
    finally:
        office.resize(WIDTH, HEIGHT)


def run_group_editor(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    if not office.step("groups and repeats built, nested and moved, counts checked live", build_groups, office, facts):
        return
    if not office.step("a group is removed with its questions after a confirmation", group_removed_with_its_questions, office, facts):
        return
    if not office.step("published nested as the template format nests it", groups_published, office, facts):
        return
    office.step("opened again and published again: the same structure", groups_round_trip, office, facts)
    office.step("the editor with groups at a phone's width fits", groups_fit_a_phone, office, facts)


# ---- simulated forms, natural names, positions ------------------------------------------------


def names_sort_naturally_and_pages_count(office, facts):
    """Form names in natural order over pages of 5, each page saying where it is, then back."""
    total = facts["simulatedCount"] + facts["realCount"]
    office.open("/submissions?sort=formName&limit=5", "submissions-by-name")
    seen, positions = [], []
    while True:
        seen += [r.find_element(By.CSS_SELECTOR, "td.form-name a.open").text for r in rows(office)]
        positions.append(office.find("p#count").text)
        nexts = office.all("a#next-page")
        if not nexts:
            break
        office.follow(nexts[0])
    office.screenshot("submissions-by-name-last")
    check(seen == facts["naturalOrder"], f"the names in order: {seen}, expected {facts['naturalOrder']}")
    expected = [f"{first}–{min(first + 4, total)} of {total}" for first in range(1, total + 1, 5)]
    check(len(positions) == len(expected) and all(e in p for p, e in zip(positions, expected)),
          f"p#count on the pages: {positions}, expected {expected}")
    office.follow(office.find("a#previous-page"))
    back = office.find("p#count").text
    check(expected[-2] in back, f"a#previous-page from the last page: {back!r}, expected {expected[-2]!r}")
    return " · ".join(positions)


def run_simulated(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    office.step("one switch hides simulated forms in the listing and the statistics", simulated_switch, office, facts)
    office.step("names sort naturally; pages say \"11–13 of 13\"; Previous goes back", names_sort_naturally_and_pages_count,
                office, facts)


def location_submission(office, facts):
    """The submission page shows where the form was started and each location answer."""
    office.open(f"/submissions/{facts['locationId']}", "location-submission")
    start = office.find("#submission-header dd.start-location")
    check(start.get_attribute("data-latitude") == facts["startLatitude"],
          f"dd.start-location data-latitude {start.get_attribute('data-latitude')!r}, expected {facts['startLatitude']!r}")
    check(start.get_attribute("data-longitude") == facts["startLongitude"],
          f"dd.start-location data-longitude {start.get_attribute('data-longitude')!r}, expected {facts['startLongitude']!r}")
    answer = office.find(f"section.question[data-question-id='{facts['locationQuestion']}'] dl.location")
    check(answer.find_element(By.CSS_SELECTOR, "dd.latitude").text == facts["answerLatitude"],
          f"the answer's latitude shows {answer.text!r}, expected {facts['answerLatitude']!r}")
    check(answer.find_element(By.CSS_SELECTOR, "dd.longitude").text == facts["answerLongitude"],
          f"the answer's longitude shows {answer.text!r}, expected {facts['answerLongitude']!r}")
    check(f"±{facts['answerAccuracy']} m" in answer.text, f"the answer's accuracy is not shown: {answer.text!r}")
    link = answer.find_element(By.CSS_SELECTOR, "a.geo-link").get_attribute("href")
    check(link == f"geo:{facts['answerLatitude']},{facts['answerLongitude']}", f"a.geo-link goes to {link!r}")


def location_statistics(office, facts):
    """The statistics page plots every point as SVG, drawn on the server, beside the count and box."""
    office.open(f"/templates/{facts['locationTemplate']}/stats", "location-statistics")
    section = office.find(f"section.question-stats[data-question-id='{facts['locationQuestion']}']")
    dots = section.find_elements(By.CSS_SELECTOR, "svg.chart-locations circle.location")
    check(len(dots) == facts["pointCount"], f"{len(dots)} points plotted, expected {facts['pointCount']}")
    count = section.find_element(By.CSS_SELECTOR, "td.point-count").text
    check(count == str(facts["pointCount"]), f"td.point-count says {count!r}, expected {facts['pointCount']}")
    north = float(section.find_element(By.CSS_SELECTOR, "td.north").text)
    south = float(section.find_element(By.CSS_SELECTOR, "td.south").text)
    check(abs(north - facts["north"]) < 1e-3 and abs(south - facts["south"]) < 1e-3,
          f"the box says north {north}, south {south}; expected {facts['north']}, {facts['south']}")
    titles = [d.find_element(By.CSS_SELECTOR, "title").get_attribute("textContent") for d in dots]
    check(all("," in t for t in titles), f"every point's tooltip gives its coordinates: {titles[:3]}")
    return f"{len(dots)} points"


def location_geojson(office, facts):
    """The statistics page's GeoJSON link downloads one feature per located form, longitude first."""
    href = office.find("a#export-geojson").get_attribute("href")
    check("format=geojson" in href, f"a#export-geojson goes to {href!r}")
    status, headers, body = office.http(href.replace(office.base, ""))
    check(status == 200, f"the GeoJSON download answered {status}")
    check("geo+json" in headers.get("Content-Type", ""), f"Content-Type {headers.get('Content-Type')!r}")
    collection = json.loads(body)
    check(collection.get("type") == "FeatureCollection", f"not a FeatureCollection: {str(collection)[:200]}")
    features = collection["features"]
    check(len(features) == facts["featureCount"], f"{len(features)} features, expected {facts['featureCount']}")
    located = [f for f in features if f["id"] == facts["locationId"]]
    check(located, f"no feature for {facts['locationId']}")
    longitude, latitude = located[0]["geometry"]["coordinates"][:2]
    check(abs(longitude - float(facts["startLongitude"])) < 1e-6 and abs(latitude - float(facts["startLatitude"])) < 1e-6,
          f"coordinates {located[0]['geometry']['coordinates']}, expected [longitude, latitude] = "
          f"[{facts['startLongitude']}, {facts['startLatitude']}]")
    return f"{len(features)} features"


def run_locations(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    office.step("the submission page shows the start location and the location answer", location_submission, office, facts)
    office.step("the statistics page plots the points as SVG with their box", location_statistics, office, facts)
    office.step("the GeoJSON download puts each form at [longitude, latitude]", location_geojson, office, facts)
    office.step("a search for the answer's coordinates finds the form", filtered_by_word, office,
                facts["searchWord"], 1, facts["locationForm"])

# ---- groups and repeats on the submission page and in its PDF ---------------------------------


def repeats_group_not_relevant(office, facts):
    """The group is a labelled section marked "not relevant", its question greyed and marked."""
    office.open(f"/submissions/{facts['id']}", "repeats-submission")
    group = office.find(f"section.form-group[data-group-id='{facts['group']}']")
    check("not-relevant" in group.get_attribute("class"), f"the group's section is not marked: {group.get_attribute('class')!r}")
    check("not relevant" in group.find_element(By.CSS_SELECTOR, "h2").text,
          f"the group's heading does not say not relevant: {group.find_element(By.CSS_SELECTOR, 'h2').text!r}")
    question = group.find_element(By.CSS_SELECTOR, f"section.question[data-path='{facts['notRelevantQuestion']}']")
    check("not-relevant" in question.get_attribute("class"), "the group's question is not marked not-relevant")
    mark = question.find_element(By.CSS_SELECTOR, ".not-relevant-mark")
    check(mark.text == "not relevant" and mark.is_displayed(), f"the question's mark reads {mark.text!r}")
    color = office.driver.execute_script("return getComputedStyle(arguments[0]).color", mark)
    check(color != "rgb(0, 0, 0)", f"the mark is not greyed: {color}")
    header = office.find("#submission-header").text
    check(facts["answered"] in header, f"the header does not count {facts['answered']!r}: {header!r}")


def repeats_table(office, facts):
    """The counted repeat of simple questions is one table: a row per instance, a column per question."""
    section = office.find(f"section.form-repeat[data-repeat-id='{facts['table']}']")
    tables = section.find_elements(By.CSS_SELECTOR, "table.repeat-table")
    check(len(tables) == 1, f"{len(tables)} table.repeat-table in the {facts['table']} repeat")
    headers = [th.text for th in tables[0].find_elements(By.CSS_SELECTOR, "thead th")][1:]
    check(headers == facts["columns"], f"the table's columns are {headers}, expected {facts['columns']}")
    rows = tables[0].find_elements(By.CSS_SELECTOR, "tbody tr.instance")
    check([r.get_attribute("data-path") for r in rows] == facts["rows"],
          f"rows {[r.get_attribute('data-path') for r in rows]}, expected {facts['rows']}")
    check([r.find_element(By.CSS_SELECTOR, "th").text for r in rows] == facts["rowLabels"],
          f"row labels {[r.find_element(By.CSS_SELECTOR, 'th').text for r in rows]}")
    for path, value in facts["cells"].items():
        cell = tables[0].find_element(By.CSS_SELECTOR, f"td[data-path='{path}']")
        check(cell.text.strip() == value, f"the cell {path} shows {cell.text!r}, expected {value!r}")
    cell = tables[0].find_element(By.CSS_SELECTOR, f"td[data-path='{facts['notRelevantCell']}']")
    check("not-relevant" in cell.get_attribute("class") and cell.text.strip() == "not relevant",
          f"the cell {facts['notRelevantCell']} is {cell.get_attribute('class')!r} {cell.text!r}, expected marked not relevant")
    check(not section.find_elements(By.CSS_SELECTOR, "section.repeat-instance"), "the table's repeat also has instance sections")
    return f"{len(rows)} rows"


def repeats_sections(office, facts):
    """The open repeat is a section per instance, the nested repeat inside each (its instances as
    rows of its own table: its questions are simple), and the instance's photo under its question."""
    section = office.find(f"section.form-repeat[data-repeat-id='{facts['sections']}']")
    instances = section.find_elements(By.CSS_SELECTOR, ":scope > section.repeat-instance")
    check([i.get_attribute("data-path") for i in instances] == facts["instances"],
          f"instances {[i.get_attribute('data-path') for i in instances]}, expected {facts['instances']}")
    labels = [i.find_element(By.CSS_SELECTOR, "h3").text for i in instances]
    check(labels[0].startswith("Tank 1") and labels[1].startswith("Tank 2"), f"instance headings {labels}")
    for path, expected in facts["nested"].items():
        nested = office.find(f"section.repeat-instance > section.form-repeat[data-path='{path}']")
        found = [i.get_attribute("data-path") for i in nested.find_elements(By.CSS_SELECTOR, "section.repeat-instance, tr.instance")]
        check(found == expected, f"the nested repeat {path} has instances {found}, expected {expected}")
    photo = facts["instancePhoto"]
    question = office.find(f"section.repeat-instance[data-path='{facts['instances'][0]}'] "
                           f"section.question[data-path='{photo['path']}']")
    image = question.find_element(By.CSS_SELECTOR, "a.full-size img.photo")
    check(image.get_attribute("alt") == photo["name"], f"the instance's photo is {image.get_attribute('alt')!r}, expected {photo['name']!r}")
    office.driver.execute_script("arguments[0].scrollIntoView()", image)
    WebDriverWait(office.driver, 10).until(lambda d: d.execute_script("return arguments[0].complete", image))
    width = office.driver.execute_script("return arguments[0].naturalWidth", image)
    check(width and width > 0, f"the instance's photo did not load (naturalWidth {width})")
    office.screenshot("repeats-instance-photo")
    return f"photo {width} px wide"


def repeats_pdf(office, facts, folder):
    """The PDF shows the same structure, in order (pdftotext -layout)."""
    status, headers, body = office.http(f"/submissions/{facts['id']}/report.pdf")
    check(status == 200 and body.startswith(b"%PDF"), f"the PDF: {status} {body[:60]!r}")
    path = os.path.join(folder, "repeats-report.pdf")
    with open(path, "wb") as file:
        file.write(body)
    text = subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True, timeout=60)
    check(text.returncode == 0, f"pdftotext failed: {text.stderr.strip()}")
    position = 0
    for expected in facts["pdfOrder"]:
        found = text.stdout.find(expected, position)
        check(found >= 0, f"the PDF lacks {expected!r} after position {position}: {text.stdout[position:position + 600]!r}")
        position = found + len(expected)
    rows = [line for line in text.stdout.splitlines() if "Pump 1" in line]
    check(rows and "12" in rows[0] and "worn" in rows[0], f"the table's row of Pump 1 is not one line with its cells: {rows}")
    return f"{len(body)} bytes"


def run_repeats(office, facts, folder):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    office.step("a group not relevant is a labelled section marked \"not relevant\"", repeats_group_not_relevant, office, facts)
    office.step("a counted repeat of simple questions is one table", repeats_table, office, facts)
    office.step("an open repeat is a section per instance, nested repeats and photos inside", repeats_sections, office, facts)
    office.step("an answer in a repeat is text, never markup", hostile_text, office, facts["hostile"])
    office.step("the PDF shows the groups, the table and the instances in order", repeats_pdf, office, facts, folder)


def languages_page(office, facts, key):
    """The submission page in a language: its switch marks it, the texts are in it, the answer the same."""
    shown = facts[key]
    current = office.find("#language-switch .language.current")
    check(current.get_attribute("data-language") == shown["language"],
          f"the switch marks {current.get_attribute('data-language')!r}, expected {shown['language']!r}")
    body = office.find("#form-answers").text
    for text in shown["texts"]:
        check(text in body, f"{text!r} is not on the page in {shown['language']}: {body!r}")
    for text in shown["absent"]:
        check(text not in body, f"{text!r} is on the page in {shown['language']}: {body!r}")
    check(facts["answer"] in body, f"the answer {facts['answer']!r} is not on the page: {body!r}")


def languages_switch(office, facts, key):
    """Clicking a language's link shows the page in it (?lang=)."""
    language = facts[key]["language"]
    link = office.find(f"#language-switch a.language[data-language='{language}']")
    link.click()
    WebDriverWait(office.driver, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f"#language-switch .language.current[data-language='{language}']"))
    office.screenshot(f"languages-{key}")
    check("lang=" in office.driver.current_url, f"the switch did not link ?lang=: {office.driver.current_url}")


def run_languages(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    office.open(f"/submissions/{facts['id']}", "languages-first")
    office.step("the submission page is in the form's language", languages_page, office, facts, "first")
    office.step("the switch links the other language", languages_switch, office, facts, "second")
    office.step("the page is in the language chosen", languages_page, office, facts, "second")
    office.step("the switch links back to the first", languages_switch, office, facts, "first")
    office.step("the page is in the first language again", languages_page, office, facts, "first")


def review_send_back(office, facts):
    """fiona ticks two questions on the submission page, writes a note for each and one overall,
    and sends the form back: the panel says "Has issues" and lists both flags."""
    office.open(f"/submissions/{facts['formId']}", "send-back-before")
    state = office.find("#review-state").get_attribute("textContent").strip()
    check(state == "Received", f"#review-state says {state!r} before the review, expected 'Received'")
    for path, note in facts["flags"]:
        box = office.find(f"#send-back input[type=checkbox][name='flag:{path}']")
        check(not box.is_selected(), f"flag:{path} is ticked before anyone flagged it")
        box.click()
        type_into(office.find(f"#send-back input[type=text][name='note:{path}']"), note)
    type_into(office.find("textarea#send-back-note"), facts["sendBackNote"])
    office.screenshot("send-back-filled")
    office.follow(office.find("button#send-back-submit"))
    office.screenshot("send-back-after")
    state = office.find("#review-state").get_attribute("textContent").strip()
    check(state == "Has issues", f"#review-state says {state!r} after sending back, expected 'Has issues'")
    shown = {li.get_attribute("data-question"): li.text for li in office.all("#review-flags li")}
    check(set(shown) == {path for path, _ in facts["flags"]}, f"#review-flags lists {sorted(shown)}")
    for path, note in facts["flags"]:
        check(note in shown[path], f"the flag of {path} shows {shown[path]!r}, expected its note {note!r}")
    check(facts["sendBackNote"] in office.find("p.sent-back").text, f"p.sent-back says {office.find('p.sent-back').text!r}")
    for path, _ in facts["flags"]:
        check(office.find(f"#send-back input[name='flag:{path}']").is_selected(), f"flag:{path} is not ticked after sending back")


def review_returned_api(office, facts):
    """The API agrees: GET /api/v1/returned?user=ana lists the form with both flags."""
    status, _, body = office.http(f"/api/v1/returned?user={facts['technician']}")
    check(status == 200, f"GET /api/v1/returned answered {status}: {body[:200]!r}")
    returned = json.loads(body)
    check([form["id"] for form in returned] == [facts["formId"]], f"returned lists {[form['id'] for form in returned]}")
    flags = sorted((flag["question"], flag["note"]) for flag in returned[0]["flags"])
    check(flags == sorted(tuple(flag) for flag in facts["flags"]), f"returned flags {flags}")
    check(returned[0].get("note") == facts["sendBackNote"], f"returned note {returned[0].get('note')!r}")


def review_technician_sees_no_controls(office, facts):
    """ana sees the state and the flags of her form, and no form to change them."""
    office.sign_out()
    office.sign_in(facts["technician"], facts["technicianPassword"], facts["technician"])
    office.open(f"/submissions/{facts['formId']}", "send-back-technician")
    state = office.find("#review-state").get_attribute("textContent").strip()
    check(state == "Has issues", f"ana's #review-state says {state!r}")
    check(len(office.all("#review-flags li")) == len(facts["flags"]), "ana does not see both flags")
    check(not office.all("form#review-change") and not office.all("form#send-back"), "ana sees the foreman's controls")


def run_send_back(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    if not office.step("fiona flags two questions and sends the form back", review_send_back, office, facts):
        return
    office.step("GET /api/v1/returned lists the form with its flags", review_returned_api, office, facts)
    office.step("ana sees the state and flags, and no controls", review_technician_sees_no_controls, office, facts)


def versions_listed(office, facts):
    """fiona opens the corrected form: the versions panel lists 2 (current) and 1, and the
    changes from 1 to 2 show exactly the answer the technician changed, and the reply."""
    office.open(f"/submissions/{facts['formId']}", "versions-current")
    rows = [row.get_attribute("data-version") for row in office.all("#versions table.versions tbody tr")]
    check(rows == ["2", "1"], f"#versions lists {rows}, expected ['2', '1']")
    check("current" in office.find("#versions tr[data-version='2']").text.lower(), "version 2 is not marked current")
    state = office.find("#review-state").get_attribute("textContent").strip()
    check(state == "Edited", f"#review-state says {state!r} after the corrected upload, expected 'Edited'")
    heading = office.find("#changes h2").text
    check(heading == "Changes from version 1 to 2", f"#changes says {heading!r}")
    answers = [(row.get_attribute("data-question"), row.find_element(By.CSS_SELECTOR, "td.before").text,
                row.find_element(By.CSS_SELECTOR, "td.after").text)
               for row in office.all("#changes tr[data-kind='answer']")]
    expected = [(facts["changedQuestion"], facts["before"], facts["after"])]
    check(answers == expected, f"the answer changes shown are {answers}, expected {expected}")
    replies = [(row.get_attribute("data-question"), row.find_element(By.CSS_SELECTOR, "td.after").text)
               for row in office.all("#changes tr[data-kind='reply']")]
    check(replies == [(facts["repliedQuestion"], facts["reply"])], f"the replies shown are {replies}")
    office.screenshot("versions-changes")


def versions_old_one(office, facts):
    """The link to version 1 shows it as it was uploaded, saying a newer version replaced it."""
    office.follow(office.find("#versions tr[data-version='1'] a"))
    office.screenshot("versions-old")
    notice = office.find("#versions p.old-version").text
    check("version 2 replaced it" in notice, f"the old version's notice says {notice!r}")
    shown = office.find(f"[data-question-id='{facts['changedQuestion']}']").text
    check(facts["before"] in shown, f"version 1 shows {facts['changedQuestion']} as {shown!r}, expected {facts['before']!r}")
    link = office.find("#download-form").get_attribute("href")
    check(link.endswith("/form.json?version=1"), f"version 1's form.json link is {link!r}")


def run_versions(office, facts):
    if not office.step("fiona (foreman) signs in", signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
        return
    if not office.step("the corrected form lists its versions and the changes", versions_listed, office, facts):
        return
    office.step("version 1 is shown as it was", versions_old_one, office, facts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the office's address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--profile", required=True, help="a fresh chromium profile folder")
    parser.add_argument("--screenshots", required=True, help="where every page's PNG goes")
    parser.add_argument("--facts", help="JSON: what the test prepared (ids, names, the word, counts)")
    parser.add_argument("--editor", action="store_true", help="build and publish the template the facts describe")
    parser.add_argument("--simulated", action="store_true", help="the listing and statistics over simulated forms")
    parser.add_argument("--locations", action="store_true", help="locations on the submission and statistics pages, GeoJSON")
    parser.add_argument("--generic-editor", action="store_true",
                        help="build, publish and read back the template of facts' questions through their settings")
    parser.add_argument("--repeats", action="store_true", help="groups, repeats and relevance on a submission page and its PDF")
    parser.add_argument("--group-editor", action="store_true",
                        help="build, publish and publish again a template with a group and a repeat")
    parser.add_argument("--languages", action="store_true", help="the submission page's language switch")
    parser.add_argument("--send-back", action="store_true", help="flag two questions and send a form back")
    parser.add_argument("--versions", action="store_true", help="the versions of a corrected form and what changed")
    parser.add_argument("--capture", metavar="PNG", help="only sign in and save the first submission's page")
    parser.add_argument("--page", help="with --capture: the submission page's path")
    parser.add_argument("--user", default="fiona")
    parser.add_argument("--password", default="fiona-password")
    arguments = parser.parse_args()
    try:
        prefix = ("capture-" if arguments.capture else "editor-" if arguments.editor
                  else "generic-" if arguments.generic_editor else "groups-" if arguments.group_editor
                  else "simulated-" if arguments.simulated else "sendback-" if arguments.send_back else "versions-" if arguments.versions else "languages-" if arguments.languages else "repeats-" if arguments.repeats else "locations-" if arguments.locations else "review-")
        office = Office(arguments.base, arguments.profile, arguments.screenshots, prefix)
    except WebDriverException as error:
        print(f"FAIL start chromium through /usr/bin/chromedriver: {error}", flush=True)
        return 2
    try:
        if arguments.capture:
            office.step(f"capture {arguments.capture}", capture, office, arguments.user, arguments.password,
                        arguments.capture, arguments.page)
        elif arguments.editor:
            run_editor(office, json.loads(arguments.facts))
        elif arguments.simulated:
            run_simulated(office, json.loads(arguments.facts))
        elif arguments.send_back:
            run_send_back(office, json.loads(arguments.facts))
        elif arguments.versions:
            run_versions(office, json.loads(arguments.facts))
        elif arguments.languages:
            run_languages(office, json.loads(arguments.facts))
        elif arguments.repeats:
            run_repeats(office, json.loads(arguments.facts), arguments.screenshots)
        elif arguments.locations:
            run_locations(office, json.loads(arguments.facts))
        elif arguments.generic_editor:
            run_generic_editor(office, json.loads(arguments.facts))
        elif arguments.group_editor:
            run_group_editor(office, json.loads(arguments.facts))
        else:
            run_all(office, json.loads(arguments.facts), arguments.screenshots)
            office.no_alert()
    finally:
        office.driver.quit()
    if office.failures:
        print(f"{len(office.failures)} of {office.passed + len(office.failures)} steps failed: "
              + "; ".join(office.failures), flush=True)
        return 1
    print(f"all {office.passed} steps passed; screenshots in {arguments.screenshots}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
