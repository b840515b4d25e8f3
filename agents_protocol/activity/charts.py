"""The page's charts as geometry for SVG templates (admin/agents_protocol/activity/*.svg.html):
drawn on the server, coloured by classes of the page's static CSS (no script, no style
attribute), every bar carrying its number in `data-value` and a <title>."""
from dataclasses import dataclass

WIDTH = 720
PLOT_LEFT = 48  # room for the axis labels
LABEL_WIDTH = 150  # horizontal charts: room for the names on the left
ROW_HEIGHT = 22
SERIES_CLASSES = 6  # series-1 … series-6 in activity.css; series-0 is the successful calls


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: float
    title: str
    css_class: str = "series-0"


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"


@dataclass(frozen=True)
class Chart:
    name: str  # the chart's id
    title: str
    table: str  # the table (and CSV) of its numbers
    width: int
    height: int
    bars: list
    labels: list
    legend: list = ()  # (css class, text)


def day_bars(name, title, per_day, unit, height=160):
    """One vertical bar per day, the y axis from 0 to the largest value."""
    plot_top, plot_bottom = 12, height - 24
    top = max(per_day.values(), default=0) or 1
    slot = (WIDTH - PLOT_LEFT) / max(len(per_day), 1)
    bars, labels = [], [Label(PLOT_LEFT - 6, plot_top + 4, str(top), "end"), Label(PLOT_LEFT - 6, plot_bottom, "0", "end")]
    every = max(1, len(per_day) // 6)  # at most about 7 date labels
    for n, (day, value) in enumerate(per_day.items()):
        bar_height = (plot_bottom - plot_top) * value / top
        x = PLOT_LEFT + n * slot
        bars.append(Bar(x + slot * 0.1, plot_bottom - bar_height, slot * 0.8, bar_height, value,
                        f"{day:%Y-%m-%d}: {value} {unit}"))
        if n % every == 0 or n == len(per_day) - 1:
            labels.append(Label(x + slot / 2, height - 6, f"{day:%b %d}", "middle"))
    return Chart(name, title, "days", WIDTH, height, bars, labels)


def horizontal_bars(name, title, table, rows, unit, legend=()):
    """One row per (label, [(value, css class, what)]) with its segments stacked left to right,
    scaled to the longest row."""
    top = max((sum(value for value, _, _ in segments) for _, segments in rows), default=0) or 1
    span = WIDTH - LABEL_WIDTH - 60
    bars, labels = [], []
    for n, (label, segments) in enumerate(rows):
        y, x = n * ROW_HEIGHT + 4, LABEL_WIDTH
        labels.append(Label(LABEL_WIDTH - 6, y + 13, label, "end"))
        for value, css_class, what in segments:
            width = span * value / top
            bars.append(Bar(x, y, width, ROW_HEIGHT - 6, value, f"{label}: {value:g} {what or unit}", css_class))
            x += width
        labels.append(Label(x + 4, y + 13, f"{sum(value for value, _, _ in segments):g}"))
    return Chart(name, title, table, WIDTH, max(len(rows), 1) * ROW_HEIGHT + 8, bars, labels, legend)


def code_class(codes, code):
    """The CSS class of a refusal code's segments: series-1 … series-6 in order of frequency."""
    return f"series-{codes.index(code) % SERIES_CLASSES + 1}"


def charts_of(activity, shown):
    """The page's charts; `shown` is how an agent's name and version are written on the page."""
    codes = activity.codes
    capability_rows = [
        (row.name or "(no capability)",
         [(row.calls - row.refused, "series-0", "answered")]
         + [(row.refusals[code], code_class(codes, code), f"refused: {code}") for code in codes if row.refusals[code]])
        for row in activity.capabilities
    ]
    latency_rows = [(row.name or "(no capability)", [(round_ms(row.p95_us), "series-0", "ms p95")])
                    for row in activity.capabilities if row.p95_us is not None]
    median_rows = [(row.name or "(no capability)", [(round_ms(row.median_us), "series-0", "ms median")])
                   for row in activity.capabilities if row.median_us is not None]
    agent_rows = [(shown(row), [(row.calls - row.refused, "series-0", "answered"),
                                (row.refused, "series-1", "refused")]) for row in activity.agents]
    return [
        day_bars("sessions", "Sessions started per day", activity.sessions_per_day, "sessions"),
        day_bars("calls", "Calls per day", activity.calls_per_day, "calls"),
        horizontal_bars("capabilities", "Calls per capability, answered and refused", "capabilities",
                        capability_rows, "calls",
                        legend=[("series-0", "answered"), *((code_class(codes, code), code) for code in codes)]),
        horizontal_bars("funnel", "Funnel: sessions reaching each step", "funnel",
                        [(step.name, [(step.sessions, "series-0", "sessions")]) for step in activity.funnel],
                        "sessions"),
        horizontal_bars("agents", "Busiest agents, answered and refused", "agents", agent_rows, "calls",
                        legend=[("series-0", "answered"), ("series-1", "refused")]),
        horizontal_bars("latency-median", "Median latency of answered calls (ms)", "latency", median_rows, "ms"),
        horizontal_bars("latency-p95", "95th percentile latency of answered calls (ms)", "latency", latency_rows,
                        "ms"),
    ]


def round_ms(duration_us):
    return round(duration_us / 1000, 2)
