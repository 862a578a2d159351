package model

import (
	"fmt"
	"math/big"
	"strings"
)

// Quantity is a Kubernetes resource quantity ("500m", "2Gi", "1e3", "0.5").
// Only the numeric value is kept, exactly, as a rational number; the original
// text is kept for display and for textual comparisons.
type Quantity struct {
	text  string
	value *big.Rat
}

var quantitySuffixes = map[string]*big.Rat{
	"":   big.NewRat(1, 1),
	"n":  big.NewRat(1, 1_000_000_000),
	"u":  big.NewRat(1, 1_000_000),
	"m":  big.NewRat(1, 1000),
	"k":  big.NewRat(1000, 1),
	"M":  big.NewRat(1_000_000, 1),
	"G":  big.NewRat(1_000_000_000, 1),
	"T":  big.NewRat(1_000_000_000_000, 1),
	"P":  big.NewRat(1_000_000_000_000_000, 1),
	"E":  big.NewRat(1_000_000_000_000_000_000, 1),
	"Ki": big.NewRat(1<<10, 1),
	"Mi": big.NewRat(1<<20, 1),
	"Gi": big.NewRat(1<<30, 1),
	"Ti": big.NewRat(1<<40, 1),
	"Pi": big.NewRat(1<<50, 1),
	"Ei": big.NewRat(1<<60, 1),
}

// ParseQuantity parses the Kubernetes quantity syntax: an optional sign, a
// decimal number, then either a decimal exponent (e/E followed by an integer) or
// one of the suffixes n u m k M G T P E Ki Mi Gi Ti Pi Ei.
func ParseQuantity(s string) (Quantity, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Quantity{}, fmt.Errorf("quantity %q: empty", s)
	}
	i := 0
	if t[0] == '+' || t[0] == '-' {
		i++
	}
	start := i
	digits := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		if t[i] != '.' {
			digits++
		}
		i++
	}
	if digits == 0 || strings.Count(t[start:i], ".") > 1 {
		return Quantity{}, fmt.Errorf("quantity %q: expected a number", s)
	}
	num, ok := new(big.Rat).SetString(t[:i])
	if !ok {
		return Quantity{}, fmt.Errorf("quantity %q: expected a number", s)
	}
	suffix := t[i:]
	if mult, ok := quantitySuffixes[suffix]; ok {
		return Quantity{text: s, value: num.Mul(num, mult)}, nil
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		var exp int64
		if _, err := fmt.Sscanf(suffix[1:], "%d", &exp); err == nil && exp > -100 && exp < 100 {
			ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(exp)), nil)
			f := new(big.Rat).SetInt(ten)
			if exp < 0 {
				f.Inv(f)
			}
			return Quantity{text: s, value: num.Mul(num, f)}, nil
		}
	}
	return Quantity{}, fmt.Errorf("quantity %q: unknown suffix %q", s, suffix)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// MustParseQuantity is ParseQuantity for constants in tests and examples; it
// panics on a malformed literal.
func MustParseQuantity(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

// String returns the quantity as written.
func (q Quantity) String() string { return q.text }

// Rat returns the exact value (zero for the zero Quantity).
func (q Quantity) Rat() *big.Rat {
	if q.value == nil {
		return new(big.Rat)
	}
	return new(big.Rat).Set(q.value)
}

// Sign is -1, 0 or +1.
func (q Quantity) Sign() int {
	if q.value == nil {
		return 0
	}
	return q.value.Sign()
}

// Cmp compares the numeric values of q and o.
func (q Quantity) Cmp(o Quantity) int { return q.Rat().Cmp(o.Rat()) }

// EqualQuantities reports whether two resource lists name the same
// resources with equal values (nil and empty lists are equal).
func EqualQuantities(a, b map[string]Quantity) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		o, ok := b[k]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}
