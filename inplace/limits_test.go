package inplace

import (
	"math"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
)

// TestGraceLeftExtremes: an update stamped centuries after now stays in its
// grace period (the controller compares now - start < grace, and Sub
// saturates), the remainder saturates at whole seconds instead of wrapping,
// and the ordinary cases keep their value.
func TestGraceLeftExtremes(t *testing.T) {
	now := ts("2026-01-01T12:00:00Z")
	cases := []struct {
		name       string
		start      string
		grace      int
		wantIn     bool
		wantLeft   time.Duration // checked when wantIn
		saturation bool
	}{
		{"ordinary", "2026-01-01T11:59:56Z", 10, true, 6 * time.Second, false},
		{"over", "2026-01-01T11:59:00Z", 10, false, 0, false},
		{"start in the year 9999", "9999-12-31T23:59:59Z", 10, true, 0, true},
		{"start in the year 9999, grace int32 max", "9999-12-31T23:59:59Z", math.MaxInt32, true, 0, true},
		{"start in the year 1, grace int32 max", "0001-01-01T00:00:00Z", math.MaxInt32, false, 0, false},
		{"negative grace", "2026-01-01T11:59:59Z", -5, false, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gracePod(c.start, c.grace)
			left, in, err := GraceRemaining(p, now)
			if err != nil || in != c.wantIn {
				t.Fatalf("GraceRemaining = %v %v %v, want in=%v", left, in, err, c.wantIn)
			}
			switch {
			case c.saturation && (left != maxWholeDuration || left%time.Second != 0):
				t.Fatalf("left %v, want the saturated %v", left, maxWholeDuration)
			case !c.saturation && c.wantIn && left != c.wantLeft:
				t.Fatalf("left %v, want %v", left, c.wantLeft)
			}
			acts, requeue, err := Refresh(p, model.DefaultFeatureGates(), now)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantIn && (len(acts) != 0 || requeue <= 0) {
				t.Fatalf("in grace: actions %v, requeue %v", acts, requeue)
			}
		})
	}
}
