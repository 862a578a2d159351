package podtemplate

import (
	"strings"
	"testing"
)

// TestCanonicalQuantity: quantities as k8s.io/apimachinery writes them back
// (each expectation was read from resource.Quantity; the example module's
// TestCanonicalQuantityGrid compares tens of thousands more).
func TestCanonicalQuantity(t *testing.T) {
	for _, c := range []struct {
		in, want string
		fails    bool
	}{
		{"1000m", "1", false},
		{"1", "1", false},
		{"0.5Gi", "512Mi", false},
		{"1e9", "1e9", false},
		{"134217728", "134217728", false},
		{"128Mi", "128Mi", false},
		{"1024Mi", "1Gi", false},
		{"2048Ki", "2Mi", false},
		{"1536Mi", "1536Mi", false},
		{"100Mi", "100Mi", false},
		{"1.5", "1500m", false},
		{"1.5Gi", "1536Mi", false},
		{"+1", "+1", false},       // kept as written: it looks canonical to upstream
		{"0100m", "0100m", false}, // the same
		{"1.", "1.", false},       // the same
		{".5", "500m", false},
		{"-0.5", "-500m", false},
		{"1e-10", "1e-9", false}, // rounded up to nanos
		{"1e-3", "1e-3", false},
		{"10e8", "1e9", false},
		{"1.5e9", "1500e6", false},
		{"1000E", "1", false}, // 10^21 has no decimal suffix: upstream writes none
		{"1000000000000000000000", "1", false},
		{"0.000000000001", "1n", false},
		{"9.999999999999m", "10m", false},
		{"16Ei", "9223372036854775807", false}, // a binary value is capped at 2^63-1
		{"8Ei", "9223372036854775807", false},
		{"-1024", "-1024", false},
		{"1023Ki", "1023Ki", false},
		{" 2Gi ", "2Gi", false},
		{"0", "0", false},
		{"-", "0", false},
		{"+", "0", false},
		{".", "0", false},
		{"1e4294967296", "1e4294967296", false}, // the exponent is truncated to 32 bits (0): kept as written
		{"5e-1", "500e-3", false},
		{"12345678901234567890", "12345678901234567890", false},
		{"1e", "", true},
		{"1K", "", true},
		{"abc", "", true},
		{"", "", true},
		{".e-10", "", true}, // the general path needs a digit
	} {
		got, err := CanonicalQuantity(c.in)
		if (err != nil) != c.fails || got != c.want {
			t.Errorf("CanonicalQuantity(%q) = %q, %v; want %q (fails: %v)", c.in, got, err, c.want, c.fails)
		}
		if checked := checkQuantity(strings.TrimSpace(c.in)); (checked != nil) != c.fails || (err != nil && checked.Error() != err.Error()) {
			t.Errorf("checkQuantity(%q) = %v, parsing gives %v", c.in, checked, err)
		}
	}
}
