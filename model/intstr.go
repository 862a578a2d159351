package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrPercent is Kubernetes' IntOrString: either a 32-bit integer or a string,
// which is normally a percentage such as "20%". The zero value is the integer 0.
type IntOrPercent struct {
	// IsString tells which of the two members is meaningful.
	IsString bool
	// Int is the value when IsString is false.
	Int int32
	// Str is the value when IsString is true, exactly as written.
	Str string
}

// FromInt returns the integer form of v.
func FromInt(v int32) IntOrPercent { return IntOrPercent{Int: v} }

// FromString returns the string form of s (for example "20%").
func FromString(s string) IntOrPercent { return IntOrPercent{IsString: true, Str: s} }

// String renders the value as it would appear in a manifest.
func (v IntOrPercent) String() string {
	if v.IsString {
		return v.Str
	}
	return strconv.Itoa(int(v.Int))
}

// ErrNotPercentage is returned by ScaledValueKruise for a string without a
// trailing '%'.
var ErrNotPercentage = errors.New("invalid type: string is not a percentage")

// ScaledValueK8s resolves v against total the way the CloneSet controller does for
// maxSurge, maxUnavailable and scaleStrategy.maxUnavailable (Kubernetes'
// deprecated GetValueFromIntOrPercent, "parser L" of the spec): an integer is
// returned as is; for a string every '%' is deleted and the rest must be a
// base-10 integer, which is then taken as a percentage of total, rounded up or
// down in double precision. The controller ignores the error and uses 0; callers
// that want that behaviour use the returned value, which is 0 on error.
func (v IntOrPercent) ScaledValueK8s(total int, roundUp bool) (int, error) {
	if !v.IsString {
		return int(v.Int), nil
	}
	s := strings.ReplaceAll(v.Str, "%", "")
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", v.Str, err)
	}
	x := float64(p) * float64(total) / 100
	if roundUp {
		return floatToInt(math.Ceil(x)), nil
	}
	return floatToInt(math.Floor(x)), nil
}

// ScaledValueKruise resolves v against total the way kruise's
// GetScaledValueFromIntOrPercent does ("parser K"): used by the validating
// webhook for every IntOrString field and by the controller for the partition.
// An integer is returned as is; a string must end in '%' and the part before it
// is parsed as a decimal real, so "14.3%" is accepted.
func (v IntOrPercent) ScaledValueKruise(total int, roundUp bool) (int, error) {
	if !v.IsString {
		return int(v.Int), nil
	}
	if !strings.HasSuffix(v.Str, "%") {
		return 0, ErrNotPercentage
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(v.Str, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("invalid value %q: %v", v.Str, err)
	}
	x := f * float64(total) / 100
	if roundUp {
		return floatToInt(math.Ceil(x)), nil
	}
	return floatToInt(math.Floor(x)), nil
}

// floatToInt converts like Go's int() conversion on amd64, the platform the
// controller runs on: values that do not fit (and NaN) become math.MinInt64.
// Spelling it out keeps the library's result identical on every platform.
func floatToInt(x float64) int {
	if math.IsNaN(x) || x >= 9.223372036854775807e18 || x < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int(x)
}
