package probe

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH                 = 640, 360
	padL, padR, padT, padB float64 = 76, 28, 84, 52
)

// Series colours: aggregate blue, per stream red (Tableau 10, legible on
// Obsidian's light and dark themes over the chart's white background).
const (
	colorAggregate = "#1f77b4"
	colorPerStream = "#d62728"
)

// point is one level on the chart.
type point struct {
	concurrency int
	aggregate   float64
	perStream   *Stat
}

// WriteSVG draws r as an SVG chart: aggregate and per-stream rate against
// concurrency, the per-stream median with its p10–p90 range. Levels are
// evenly spaced on the x axis, in sweep order; the y axis starts at zero so
// the gap between the two lines is not exaggerated. The output depends only
// on r, so it can be compared byte for byte.
func WriteSVG(w io.Writer, r *Result) error {
	unit, pts := chartPoints(r)
	top := 0.0
	for _, p := range pts {
		top = max(top, p.aggregate)
		if p.perStream != nil {
			top = max(top, p.perStream.P90)
		}
	}
	top = niceCeil(top)
	plotW, plotH := chartW-padL-padR, chartH-padT-padB
	x := func(i int) float64 {
		if len(pts) == 1 {
			return padL + plotW/2
		}
		return padL + plotW*(0.05+0.9*float64(i)/float64(len(pts)-1))
	}
	y := func(v float64) float64 { return padT + plotH*(1-v/top) }

	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartW, chartH, chartW, chartH)
	title := "Rate against concurrency: aggregate and per stream"
	subtitle := r.Mode + " · " + r.URL
	if r.Simulated {
		subtitle = "SIMULATED server (a shared token budget, not a model) · " + subtitle
	}
	p(`<title>%s</title>`+"\n", esc(title+" · "+subtitle))
	p(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartW, chartH)
	p(`<text x="%g" y="22" font-size="15" font-weight="bold" fill="#222">%s</text>`+"\n", padL, esc(title))
	p(`<text x="%g" y="40" font-size="11" fill="#555">%s</text>`+"\n", padL, esc(subtitle))
	// Legend.
	p(`<line x1="%g" y1="58" x2="%g" y2="58" stroke="%s" stroke-width="2"/><circle cx="%g" cy="58" r="3.5" fill="%s"/>`+"\n",
		padL, padL+24, colorAggregate, padL+12, colorAggregate)
	p(`<text x="%g" y="62" fill="#222">aggregate %s (all streams)</text>`+"\n", padL+30, esc(unit))
	p(`<line x1="%g" y1="58" x2="%g" y2="58" stroke="%s" stroke-width="2" stroke-dasharray="5 3"/><rect x="%g" y="54.5" width="7" height="7" fill="%s"/>`+"\n",
		padL+230, padL+254, colorPerStream, padL+238.5, colorPerStream)
	// The per-stream series is what the table's column is, named as it
	// is: one request's decode rate (openai) or one stream's requests
	// (http), a rate of one stream already, not of a "user" on top.
	perStream := "per-stream " + unit
	if r.Counts() == UnitTokens {
		perStream = "per-stream decode " + unit
	}
	p(`<text x="%g" y="62" fill="#222">%s (p50, bar p10–p90)</text>`+"\n", padL+260, esc(perStream))
	// Axes and grid.
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		p(`<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#e0e0e0"/>`+"\n", padL, y(v), padL+plotW, y(v))
		p(`<text x="%g" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", padL-6, y(v)+4, num(v))
	}
	p(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#555"/>`+"\n", padL, padT+plotH, padL+plotW, padT+plotH)
	p(`<text x="%g" y="%g" text-anchor="middle" fill="#555">concurrency (streams in flight)</text>`+"\n", padL+plotW/2, float64(chartH)-12)
	p(`<text transform="translate(14 %g) rotate(-90)" text-anchor="middle" fill="#555">%s</text>`+"\n", padT+plotH/2, esc(unit))
	for i, pt := range pts {
		p(`<text x="%.1f" y="%g" text-anchor="middle" fill="#555">%d</text>`+"\n", x(i), padT+plotH+16, pt.concurrency)
	}
	// Series: lines first, marks and labels over them.
	var agg, per []string
	for i, pt := range pts {
		agg = append(agg, fmt.Sprintf("%.1f,%.1f", x(i), y(pt.aggregate)))
		if pt.perStream != nil {
			per = append(per, fmt.Sprintf("%.1f,%.1f", x(i), y(pt.perStream.P50)))
		}
	}
	p(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", colorAggregate, strings.Join(agg, " "))
	if len(per) > 0 {
		p(`<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="5 3" points="%s"/>`+"\n", colorPerStream, strings.Join(per, " "))
	}
	for i, pt := range pts {
		p(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x(i), y(pt.aggregate), colorAggregate)
		p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>`+"\n", x(i), y(pt.aggregate)-8, colorAggregate, num(pt.aggregate))
		if s := pt.perStream; s != nil {
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x(i), y(s.P10), x(i), y(s.P90), colorPerStream)
			p(`<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`+"\n", x(i)-3.5, y(s.P50)-3.5, colorPerStream)
			lx, anchor := x(i)+7, "start"
			if i == len(pts)-1 && len(pts) > 1 {
				lx, anchor = x(i)-7, "end" // the last label stays inside the chart
			}
			p(`<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s">%s</text>`+"\n", lx, y(s.P50)+14, anchor, colorPerStream, num(s.P50))
		}
	}
	p("</svg>\n")
	return b.Flush()
}

// chartPoints picks the rates to draw: requests per second in http mode,
// output tokens per second (decode, per stream) in openai mode.
func chartPoints(r *Result) (unit string, pts []point) {
	unit = "req/s"
	if r.Counts() == UnitTokens {
		unit = "tok/s"
	}
	for _, lv := range r.Levels {
		pt := point{concurrency: lv.Concurrency, aggregate: lv.RequestThroughput.Avg, perStream: lv.RequestThroughputPerUser}
		if r.Counts() == UnitTokens {
			pt.aggregate, pt.perStream = 0, lv.OutputTokenThroughputPerUser
			if lv.OutputTokenThroughput != nil {
				pt.aggregate = lv.OutputTokenThroughput.Avg
			}
		}
		pts = append(pts, pt)
	}
	return unit, pts
}

// niceCeil rounds v up to a number whose quarters (the axis ticks) are
// round: 1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6 or 8 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10} {
		if v <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func esc(s string) string { return html.EscapeString(s) }
