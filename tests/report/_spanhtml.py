"""Reading the views' HTML back: the styled runs of each row, as (class, text) pairs."""

from __future__ import annotations

from html.parser import HTMLParser


class Runs(HTMLParser):
    """Collects, per ``<td class="myc-text">``, the runs of text with their span class
    (``""`` for unmarked text) and their ``data-s``/``data-e`` offsets."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, str]]] = []
        self.offsets: list[list[tuple[int, int]]] = []
        self.names: list[str] = []
        self._in_text = False
        self._in_th = False
        self._cls = ""
        self._spans: list[bool] = []  # per open span: is it a styled run (with offsets)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and a.get("class") == "myc-text":
            self._in_text = True
            self.rows.append([])
            self.offsets.append([])
        elif tag == "th" and not self._in_text:
            self._in_th = True
            self.names.append("")
        elif tag == "span" and self._in_text:
            run = "data-s" in a  # markers and escapes inside a run carry no offsets
            self._spans.append(run)
            if run:
                self._cls = a.get("class", "").split()[0]
                self.offsets[-1].append((int(a["data-s"]), int(a["data-e"])))

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_text = False
        elif tag == "th":
            self._in_th = False
        elif tag == "span" and self._spans and self._spans.pop():
            self._cls = ""

    def handle_data(self, data):
        if self._in_text:
            self.rows[-1].append((self._cls, data))
        elif self._in_th:
            self.names[-1] += data


def parse(html: str) -> Runs:
    parser = Runs()
    parser.feed(html)
    return parser
