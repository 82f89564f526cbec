package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The chart's geometry, in the units of its viewBox.
const (
	svgWidth, svgHeight = 900, 500
	plotLeft, plotRight = 78, 660 // the plot area, inside the axes
	plotTop, plotBottom = 50, 440
	legendLeft          = 680
)

// plotPalette colours the settings by trigger; plotDashes tells their
// windows apart.
var (
	plotPalette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"}
	plotDashes  = []string{"", "7 4", "2 3", "10 3 2 3"}
)

const baseColor = "#555555" // the uncompressed chat

// plotSVG returns an SVG chart of the tokens sent at each turn by the
// uncompressed chat (base) and by each replay, the turns where the
// summarizer ran marked on the replay's line: a filled dot when it ran in
// the request, a hollow one when it ran in the background after the turn.
// A ceiling other than 0 is drawn as a horizontal line.
// A replay's colour is that of its trigger's index in triggers, its dash
// that of its window's index in windows. The output depends on its
// arguments only: the same replays make the same bytes.
func plotSVG(title string, ceiling int, base *replay, replays []*replay, triggers, windows []int) []byte {
	return drawChart(title, chartLabels{x: "turn (user message)", y: "tokens sent", base: "uncompressed"}, ceiling, base, replays, triggers, windows)
}

// chartLabels are the words of a chart: its axes' and its base line's.
type chartLabels struct{ x, y, base string }

// drawChart is plotSVG with the words of labels: each replay's sent
// values, whatever they count, against turns.
func drawChart(title string, labels chartLabels, ceiling int, base *replay, replays []*replay, triggers, windows []int) []byte {
	var b bytes.Buffer
	n := len(base.sent)
	top := max(base.largest, ceiling)
	for _, r := range replays {
		top = max(top, r.largest)
	}
	yStep := max(niceStep(float64(max(top, 1)), 6), 1)
	yMax := math.Ceil(float64(max(top, 1))/yStep) * yStep
	x := func(turn int) float64 { // turn counts from 1
		if n == 1 {
			return (plotLeft + plotRight) / 2
		}
		return plotLeft + float64(turn-1)*(plotRight-plotLeft)/float64(n-1)
	}
	y := func(v float64) float64 { return plotBottom - v*(plotBottom-plotTop)/yMax }

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, svgHeight, svgWidth, svgHeight)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, svgHeight)
	fmt.Fprintf(&b, `<text x="%d" y="28" text-anchor="middle" font-size="15">%s</text>`+"\n", (plotLeft+plotRight)/2, esc(title))

	// Grid lines, ticks and their labels.
	b.WriteString(`<g stroke="#e4e4e4">` + "\n")
	for v := yStep; v <= yMax+yStep/2; v += yStep {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s"/>`+"\n", plotLeft, f1(y(v)), plotRight, f1(y(v)))
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g stroke="black">` + "\n")
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", plotLeft, plotBottom, plotRight, plotBottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", plotLeft, plotBottom, plotLeft, plotTop)
	xTicks := turnTicks(n)
	for _, t := range xTicks {
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d"/>`+"\n", f1(x(t)), plotBottom, f1(x(t)), plotBottom+5)
	}
	for v := 0.0; v <= yMax+yStep/2; v += yStep {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s"/>`+"\n", plotLeft-5, f1(y(v)), plotLeft, f1(y(v)))
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g text-anchor="middle">` + "\n")
	for _, t := range xTicks {
		fmt.Fprintf(&b, `<text x="%s" y="%d">%d</text>`+"\n", f1(x(t)), plotBottom+19, t)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", (plotLeft+plotRight)/2, plotBottom+42, esc(labels.x))
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)">%s</text>`+"\n", (plotTop+plotBottom)/2, esc(labels.y))
	b.WriteString("</g>\n")
	b.WriteString(`<g text-anchor="end">` + "\n")
	for v := 0.0; v <= yMax+yStep/2; v += yStep {
		fmt.Fprintf(&b, `<text x="%d" y="%s">%s</text>`+"\n", plotLeft-8, f1(y(v)+4), group(int(v)))
	}
	b.WriteString("</g>\n")

	// The lines, the uncompressed chat under the others, then the marks
	// above all lines.
	type style struct{ color, dash, width string }
	styleOf := func(r *replay) style {
		if r == base {
			return style{baseColor, "", "2"}
		}
		ti := max(slices.Index(triggers, r.setting.trigger), 0)
		wi := max(slices.Index(windows, r.setting.window), 0)
		return style{plotPalette[ti%len(plotPalette)], plotDashes[wi%len(plotDashes)], "1.5"}
	}
	line := func(r *replay) {
		s := styleOf(r)
		pts := make([]string, n)
		for i, v := range r.sent {
			pts[i] = f1(x(i+1)) + "," + f1(y(float64(v)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%s"%s stroke-linejoin="round" points="%s"/>`+"\n",
			s.color, s.width, dashAttr(s.dash), strings.Join(pts, " "))
	}
	if ceiling > 0 {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#b00000" stroke-dasharray="4 3"/>`+"\n",
			plotLeft, f1(y(float64(ceiling))), plotRight, f1(y(float64(ceiling))))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" fill="#b00000">ceiling %s</text>`+"\n",
			plotRight-4, f1(y(float64(ceiling))-5), group(ceiling))
	}
	all := append([]*replay{base}, replays...)
	for _, r := range all {
		line(r)
	}
	var kinds mark
	for _, r := range replays {
		s := styleOf(r)
		for i, m := range r.marks {
			if m == 0 {
				continue
			}
			kinds |= m
			fill := s.color
			if m&markRequest == 0 {
				fill = "white"
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s" stroke="%s"/>`+"\n", f1(x(i+1)), f1(y(float64(r.sent[i]))), fill, s.color)
		}
	}

	// The legend.
	ly := plotTop + 6
	for _, r := range all {
		s := styleOf(r)
		label := labels.base
		if r != base {
			label = r.setting.String()
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"%s/>`+"\n",
			legendLeft, ly, legendLeft+28, ly, s.color, s.width, dashAttr(s.dash))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", legendLeft+34, ly+4, esc(label))
		ly += 18
	}
	ly += 8
	for _, k := range []struct {
		m     mark
		fill  string
		label string
	}{{markRequest, baseColor, "summarized in the request"}, {markBackground, "white", "summarized in the background"}} {
		if kinds&k.m == 0 {
			continue
		}
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3" fill="%s" stroke="%s"/>`+"\n", legendLeft+14, ly, k.fill, baseColor)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", legendLeft+34, ly+4, k.label)
		ly += 18
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceStep returns a step of 1, 2 or 5 times a power of ten that divides
// span into about n intervals.
func niceStep(span float64, n int) float64 {
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5} {
		if f*mag >= raw {
			return f * mag
		}
	}
	return 10 * mag
}

// turnTicks returns the turns to tick on the x axis: the first, and the
// multiples of a round step up to n.
func turnTicks(n int) []int {
	step := max(int(niceStep(float64(n), 8)), 1)
	ticks := []int{1}
	for t := step; t <= n; t += step {
		if t > 1 {
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return ` stroke-dasharray="` + dash + `"`
}

// f1 formats a coordinate with one decimal, the same on every platform.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writes to a strings.Builder: cannot fail
	return b.String()
}
