package console

import (
	"fmt"
	"html/template"
	"strings"
)

// Point is a bar of a chart: its label (a day) and value.
type Point struct {
	Label string
	Value int64
}

// chart draws points as an SVG bar chart, server side: no script and
// nothing from elsewhere, so it passes the console's CSP. Each bar has a
// title (its label and value), which screen readers and hovering read;
// the figure's title is label.
func chart(label string, points []Point) template.HTML {
	const w, h, gap = 300.0, 64.0, 2.0
	var top int64 = 1
	for _, p := range points {
		top = max(top, p.Value)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %g %g" role="img" aria-label="%s" preserveAspectRatio="none">`,
		w, h+2, template.HTMLEscapeString(label))
	if n := len(points); n > 0 {
		bw := w / float64(n)
		for i, p := range points {
			bh := h * float64(p.Value) / float64(top)
			if p.Value > 0 && bh < 2 {
				bh = 2 // a small value stays visible beside zero
			}
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d</title></rect>`,
				float64(i)*bw+gap/2, h-bh, max(bw-gap, 1), bh, template.HTMLEscapeString(p.Label), p.Value)
		}
	}
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%g" x2="%g" y2="%g"/></svg>`, h+1, w, h+1)
	return template.HTML(b.String())
}
