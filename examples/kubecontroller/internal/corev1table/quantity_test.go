package corev1table

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/podtemplate"
)

// apimachineryQuantity is what the Kubernetes API types make of a quantity
// written as a JSON string: resource.Quantity's UnmarshalJSON, then its
// MarshalJSON (the quotes taken off).
func apimachineryQuantity(s string) (string, error) {
	raw, _ := json.Marshal(s)
	var q resource.Quantity
	if err := json.Unmarshal(raw, &q); err != nil {
		return "", err
	}
	out, err := json.Marshal(q)
	if err != nil {
		return "", err
	}
	var text string
	if err := json.Unmarshal(out, &text); err != nil {
		return "", err
	}
	return text, nil
}

// compareQuantity fails when the library and apimachinery disagree on s:
// the written-back text, or whether s is a quantity at all.
func compareQuantity(t interface{ Fatalf(string, ...any) }, s string) {
	want, wantErr := apimachineryQuantity(s)
	got, gotErr := podtemplate.CanonicalQuantity(s)
	// Check, which reads quantities without computing them, refuses the same.
	checked := podtemplate.Check(map[string]any{"spec": map[string]any{"overhead": map[string]any{"cpu": s}}}, "")
	if (checked == nil) != (wantErr == nil) {
		t.Fatalf("quantity %q: apimachinery error %v, Check %v", s, wantErr, checked)
	}
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("quantity %q: apimachinery %q (error %v), library %q (error %v)", s, want, wantErr, got, gotErr)
	case wantErr == nil && got != want:
		t.Fatalf("quantity %q: apimachinery writes %q, library %q", s, want, got)
	}
}

// quantitySuffixes are the suffixes the grid and the generator use: every
// suffix Kubernetes knows, exponents of both letters and signs, and a few it
// refuses.
var quantitySuffixes = []string{
	"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
	"e0", "e1", "e2", "e3", "e-1", "e-3", "e-9", "e-10", "e-12", "E3", "E+6", "e18", "e19", "e21", "e40",
	"e", "K", "i", "mi", "e1.5", "kk", "e4294967296", "e-4294967297",
}

// TestCanonicalQuantityGrid compares the library's CanonicalQuantity with
// apimachinery on a grid of signs, leading zeros, integer parts, fractions
// and suffixes (every combination), and on texts chosen for upstream's
// leniencies.
func TestCanonicalQuantityGrid(t *testing.T) {
	special := []string{"", " ", "0", "00", "+", "-", ".", "+.", "-.5", "1.", "1.G", ".5", " 100m ", "0.0",
		"1000000000000000000", "9223372036854775807", "9223372036854775808", "8Ei", "7Ei", "16Ei",
		"123456789012345678901234567890", "0.000000000000000000001", "1e-400", "1.5Gi", "0.5Gi", "1023Ki",
		"1025Mi", "2048Ki", "1024", "1024Ki", "-1024", "-1023.5", "1_000", "0x10", "1e9", "1E9", "1e+9",
		"abc", "1m5", "5e-1", "1.0", "100Mi", "134217728", "1000m", "1e3m", ".e-10", ".e-9", "1.e-10"}
	for _, s := range special {
		compareQuantity(t, s)
	}
	n := 0
	for _, sign := range []string{"", "+", "-"} {
		for _, zeros := range []string{"", "0", "00"} {
			for _, whole := range []string{"", "1", "5", "8", "10", "100", "1000", "1024", "1536", "999999", "123456789012345", "1234567890123456789"} {
				for _, frac := range []string{"none", "", "0", "5", "25", "001", "500", "0000000001", "1234567890123"} {
					for _, suf := range quantitySuffixes {
						s := sign + zeros + whole
						if frac != "none" {
							s += "." + frac
						}
						compareQuantity(t, s+suf)
						n++
					}
				}
			}
		}
	}
	t.Logf("%d quantities agree with apimachinery", n+len(special))
}

// quantityText generates quantity texts: mostly well formed, in every
// spelling, sometimes broken.
func quantityText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 20).Draw(t, "garbage") == 0 {
			return rapid.StringMatching(`[ +\-.0-9eEimkKMGTPnu]{0,12}`).Draw(t, "text")
		}
		var b strings.Builder
		b.WriteString(rapid.SampledFrom([]string{"", "", "+", "-"}).Draw(t, "sign"))
		b.WriteString(strings.Repeat("0", rapid.IntRange(0, 2).Draw(t, "zeros")))
		b.WriteString(rapid.StringMatching(`[0-9]{0,21}`).Draw(t, "whole"))
		if rapid.Bool().Draw(t, "point") {
			b.WriteString("." + rapid.StringMatching(`[0-9]{0,21}`).Draw(t, "fraction"))
		}
		if rapid.Bool().Draw(t, "exponent") {
			b.WriteString(rapid.SampledFrom([]string{"e", "E"}).Draw(t, "e"))
			b.WriteString(rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "expSign"))
			b.WriteString(rapid.StringMatching(`[0-9]{1,2}`).Draw(t, "exp"))
		} else {
			b.WriteString(rapid.SampledFrom(quantitySuffixes[:16]).Draw(t, "suffix"))
		}
		return b.String()
	})
}

// TestCanonicalQuantityProperty compares the library with apimachinery on
// generated quantity texts.
func TestCanonicalQuantityProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		compareQuantity(t, quantityText().Draw(t, "quantity"))
	})
}
