package sim

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// svgPalette colors the revisions in order of appearance.
var svgPalette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"}

var svgEventColor = map[string]string{"change": "#333333", "progress": "#2e7d32", "alarm": "#c62828", "fault": "#e65100"}

const (
	svgW, svgH                = 1000, 540
	svgLeft, svgRight         = 60, 770
	svgTop, svgBottom         = 130, 470
	svgLegendX                = 790
	svgCharW                  = 6.2
	svgLabelRows              = 4
	svgLabelRowH              = 15
	svgLabelMaxChars          = 44
	svgMinSeconds     float64 = 1
)

// SVG draws the run as a timeline a person can read: the pods of each
// revision over virtual time as stacked areas (available pods solid, pods not
// available hatched, terminating pods grey), spec.replicas as a dashed line,
// and the key events (scripted changes, Progressing condition changes,
// faults, violations) as labelled vertical markers, with axes and a legend.
// The output is deterministic.
func (r *Result) SVG() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	end := r.Final.Elapsed
	for _, s := range r.Steps {
		end = math.Max(end, s.Elapsed)
	}
	end = math.Max(end, svgMinSeconds)
	ymax := 1
	for _, s := range r.Steps {
		ymax = max(ymax, s.Pods.Active+s.Pods.Terminating, int(s.Spec.Replicas))
	}
	ystep := niceStep(float64(ymax), 8)
	ytop := int(math.Ceil(float64(ymax)/ystep) * ystep)
	if ytop <= ymax {
		ytop += int(ystep)
	}
	x := func(sec float64) float64 { return svgLeft + (svgRight-svgLeft)*sec/end }
	y := func(n float64) float64 { return svgBottom - (svgBottom-svgTop)*n/float64(ytop) }

	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	p(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", svgW, svgH)
	p("<defs>\n")
	for i := range r.Revisions {
		c := svgPalette[i%len(svgPalette)]
		p(`<pattern id="hatch%d" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="%s" fill-opacity="0.25"/><line x1="0" y1="0" x2="0" y2="6" stroke="%s" stroke-width="2.5"/></pattern>`+"\n", i, c, c)
	}
	p("</defs>\n")

	// Title.
	title := fmt.Sprintf("CloneSet %s, seed %d: %s after %s", r.CloneSet, r.Seed, r.Outcome, shortDuration(r.Final.Elapsed))
	p(`<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", svgLeft, esc(title))
	ok, na, failed := 0, 0, 0
	for _, inv := range r.Invariants {
		switch {
		case len(inv.Violations) > 0:
			failed++
		case inv.Waived != "":
			na++
		default:
			ok++
		}
	}
	sub := fmt.Sprintf("pods over virtual time, %d rounds; invariants: %d held, %d not applicable, %d failed", len(r.Steps), ok, na, failed)
	p(`<text x="%d" y="42" fill="#555555">%s</text>`+"\n", svgLeft, esc(sub))

	// Grid and axes.
	for v := 0.0; v <= float64(ytop)+1e-9; v += ystep {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", float64(svgLeft), y(v), float64(svgRight), y(v))
		p(`<text x="%.1f" y="%.1f" text-anchor="end" fill="#333333">%d</text>`+"\n", float64(svgLeft-6), y(v)+4, int(v))
	}
	tstep := niceStep(end, 10)
	for t := 0.0; t <= end+1e-9; t += tstep {
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333333"/>`+"\n", x(t), svgBottom, x(t), svgBottom+5)
		p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#333333">%s</text>`+"\n", x(t), svgBottom+19, esc(shortDuration(t)))
	}
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333333"/>`+"\n", svgLeft, svgBottom, svgRight, svgBottom)
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333333"/>`+"\n", svgLeft, svgTop, svgLeft, svgBottom)
	p(`<text x="%d" y="%d" text-anchor="middle" fill="#333333">virtual time since the start of the run</text>`+"\n", (svgLeft+svgRight)/2, svgBottom+40)
	p(`<text transform="translate(18 %d) rotate(-90)" text-anchor="middle" fill="#333333">pods</text>`+"\n", (svgTop+svgBottom)/2)

	// Stacked areas: per revision available then not available, then terminating.
	type series struct {
		fill  string
		value func(Step) int
	}
	var ss []series
	for i, rev := range r.Revisions {
		label := rev.Label
		c := svgPalette[i%len(svgPalette)]
		ss = append(ss,
			series{c, func(s Step) int { return revCount(s, label, true) }},
			series{fmt.Sprintf("url(#hatch%d)", i), func(s Step) int { return revCount(s, label, false) }})
	}
	ss = append(ss, series{"#9e9e9e", func(s Step) int { return s.Pods.Terminating }})
	lower := make([]int, len(r.Steps))
	xAt := func(i int) (float64, float64) {
		to := end
		if i+1 < len(r.Steps) {
			to = r.Steps[i+1].Elapsed
		}
		return x(r.Steps[i].Elapsed), x(to)
	}
	for _, se := range ss {
		upper := make([]int, len(r.Steps))
		any := false
		for i, s := range r.Steps {
			upper[i] = lower[i] + se.value(s)
			if upper[i] != lower[i] {
				any = true
			}
		}
		if any {
			var pts []string
			for i := range r.Steps {
				a, b := xAt(i)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", a, y(float64(upper[i])), b, y(float64(upper[i]))))
			}
			for i := len(r.Steps) - 1; i >= 0; i-- {
				a, b := xAt(i)
				pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", b, y(float64(lower[i])), a, y(float64(lower[i]))))
			}
			p(`<polygon points="%s" fill="%s" stroke="none"/>`+"\n", strings.Join(pts, " "), se.fill)
		}
		lower = upper
	}

	// spec.replicas.
	if len(r.Steps) > 0 {
		var pts []string
		for i, s := range r.Steps {
			a, b := xAt(i)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", a, y(float64(s.Spec.Replicas)), b, y(float64(s.Spec.Replicas))))
		}
		p(`<polyline points="%s" fill="none" stroke="#000000" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", strings.Join(pts, " "))
	}

	// Key events: markers, labels staggered in rows above the plot.
	rowEnd := make([]float64, svgLabelRows)
	for i := range rowEnd {
		rowEnd[i] = -1
	}
	for _, ev := range r.KeyEvents() {
		c := svgEventColor[ev.Kind]
		xe := x(ev.Elapsed)
		text := truncate(r.relabel(ev.Text), svgLabelMaxChars)
		w := float64(len([]rune(text))) * svgCharW
		anchor, lx, lo, hi := "start", xe+2, xe, xe+w+2
		if hi > svgRight {
			anchor, lx, lo, hi = "end", xe-2, xe-w-2, xe
		}
		row := -1
		for k := range rowEnd {
			if lo > rowEnd[k] {
				row = k
				break
			}
		}
		opacity := "1"
		if ev.Kind == "progress" {
			opacity = "0.6"
		}
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-opacity="%s" stroke-width="1" stroke-dasharray="3 3"/>`+"\n", xe, svgTop, xe, svgBottom, c, opacity)
		if row < 0 {
			continue // too crowded to label; the marker stays
		}
		ly := float64(svgTop - 8 - row*svgLabelRowH)
		rowEnd[row] = hi + 8
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%d" stroke="%s" stroke-width="1"/>`+"\n", xe, ly+3, xe, svgTop, c)
		p(`<text x="%.1f" y="%.1f" fill="%s" text-anchor="%s">%s</text>`+"\n", lx, ly, c, anchor, esc(text))
	}

	// Legend.
	ly := svgTop + 4
	p(`<text x="%d" y="%d" font-weight="bold">Legend</text>`+"\n", svgLegendX, ly)
	ly += 18
	for i, rev := range r.Revisions {
		c := svgPalette[i%len(svgPalette)]
		p(`<text x="%d" y="%d" fill="%s" font-weight="bold">%s</text>`+"\n", svgLegendX, ly, c, esc(truncate(rev.Label+"  "+rev.Images+"  #"+shortHash(rev.Name), 32)))
		ly += 17
		p(`<rect x="%d" y="%d" width="14" height="14" fill="%s"/>`+"\n", svgLegendX+8, ly-11, c)
		p(`<text x="%d" y="%d">available</text>`+"\n", svgLegendX+28, ly)
		p(`<rect x="%d" y="%d" width="14" height="14" fill="url(#hatch%d)" stroke="%s" stroke-width="0.5"/>`+"\n", svgLegendX+98, ly-11, i, c)
		p(`<text x="%d" y="%d">not available</text>`+"\n", svgLegendX+118, ly)
		ly += 22
	}
	p(`<rect x="%d" y="%d" width="14" height="14" fill="#9e9e9e"/>`+"\n", svgLegendX, ly-11)
	p(`<text x="%d" y="%d">terminating</text>`+"\n", svgLegendX+20, ly)
	ly += 20
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000000" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", svgLegendX, ly-4, svgLegendX+14, ly-4)
	p(`<text x="%d" y="%d">spec.replicas</text>`+"\n", svgLegendX+20, ly)
	ly += 26
	for _, k := range []struct{ kind, text string }{{"change", "spec change"}, {"progress", "Progressing condition"}, {"alarm", "deadline exceeded / violation"}, {"fault", "fault"}} {
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="3 3"/>`+"\n", svgLegendX+7, ly-12, svgLegendX+7, ly+2, svgEventColor[k.kind])
		p(`<text x="%d" y="%d" fill="%s">%s</text>`+"\n", svgLegendX+20, ly, svgEventColor[k.kind], k.text)
		ly += 18
	}
	p("</svg>\n")
	return b.Bytes()
}

// shortHash returns the part of a revision name after its last '-', cut to 6
// characters: enough to tell revisions with the same images apart.
func shortHash(name string) string {
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		name = name[i+1:]
	}
	if len(name) > 6 {
		name = name[:6]
	}
	return name
}

func revCount(s Step, label string, available bool) int {
	for _, rc := range s.Pods.Revisions {
		if rc.Label == label {
			if available {
				return rc.Available
			}
			return rc.Total - rc.Available
		}
	}
	return 0
}

// niceStep picks a tick step among 1, 2, 5 x 10^k (and 15, 30 for times) so
// that span needs at most n ticks.
func niceStep(span float64, n int) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000} {
		if span/s <= float64(n) {
			return s
		}
	}
	return math.Ceil(span / float64(n))
}

func shortDuration(sec float64) string {
	s := int(math.Round(sec))
	switch {
	case s == 0:
		return "0"
	case s%3600 == 0:
		return fmt.Sprintf("%dh", s/3600)
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	case s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

// truncate cuts s to n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
