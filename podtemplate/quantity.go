package podtemplate

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// The quantity errors, worded as Kubernetes words them.
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

// quantityFormat is how a quantity is written back: the family of its suffix.
type quantityFormat uint8

const (
	decimalSI       quantityFormat = iota // "", n, u, m, k, M, G, T, P, E
	binarySI                              // Ki, Mi, Gi, Ti, Pi, Ei
	decimalExponent                       // e<n> / E<n>
)

// quantity is a parsed resource quantity: sign × mant × 10^exp (mant without
// trailing zeros, so exp is as large as it can be), the family of its suffix,
// and text, the string it is written back as when parsing kept it.
type quantity struct {
	neg    bool
	mant   *big.Int
	exp    int64
	format quantityFormat
	text   string
	// held is how resource.Quantity holds the value it parsed, which
	// reflect.DeepEqual compares (see held).
	held heldQuantity
}

// heldQuantity is how resource.Quantity holds a parsed value in its
// unexported fields: on the 64-bit path an int64Amount (value, scale), on
// the general path an inf.Dec (sign, unscaled digits, scale), besides the
// format and the kept text (quantity's own fields).
type heldQuantity struct {
	dec      bool
	value    int64  // int64Amount.value, signed
	neg      bool   // the inf.Dec's sign
	unscaled string // the inf.Dec's unscaled magnitude: digits, "e", zeros
	scale    int64  // int64Amount.scale (a power of ten), or the inf.Dec's scale (its negation)
}

// CanonicalQuantity returns a resource quantity as the Kubernetes API types
// write it back after reading it (resource.Quantity: ParseQuantity, then
// MarshalJSON), or the error ParseQuantity gives. The rules, learned from
// k8s.io/apimachinery's behavior:
//
//   - The text is trimmed of spaces. "0" stays "0".
//   - It is an optional sign, digits with an optional fraction, and a suffix:
//     n u m "" k M G T P E (decimal), Ki Mi Gi Ti Pi Ei (binary) or e/E and
//     a decimal exponent (read as a 64-bit integer and truncated to 32 bits).
//   - A value with at most 18 digits, a non-negative binary suffix
//     that does not overflow 64 bits, and at least nanos, is kept exactly as
//     written when it already looks canonical: for a decimal or exponent
//     suffix, the exponent less the fraction's digits is a multiple of 3 and
//     the digits (leading zeros of the integer part dropped) neither start
//     with 0 nor end with 000 ("+1", "0100m" and "1." are kept as written);
//     for a binary suffix, the written number is not a multiple of 8.
//   - Otherwise the value is computed: rounded up to nanos (away from
//     zero), a binary value capped at 2^63-1 in magnitude, and written in
//     its canonical form: "0" when zero; a binary value of magnitude 1024 or
//     more that is a whole number as the largest power of 1024 it is a
//     multiple of ("512Mi"), with no suffix for 1024^0; any other value as
//     digits and an exponent that is a multiple of 3 (the largest one with
//     whole digits), the exponent written as a decimal suffix (an exponent
//     beyond n..E gets no suffix at all, as upstream) or as e<n> for an
//     exponent suffix ("1e3" family).
func CanonicalQuantity(s string) (string, error) {
	q, err := parseQuantity(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	return q.String(), nil
}

// parseQuantity reads a quantity (already trimmed).
func parseQuantity(str string) (quantity, error) {
	if str == "" {
		return quantity{}, errQuantityFormat
	}
	if str == "0" {
		return quantity{mant: new(big.Int), text: str}, nil // held: int64Amount{0, 0}
	}
	sc, err := scanQuantity(str)
	if err != nil {
		return quantity{}, err
	}
	base, exponent, format, ok := quantitySuffix(sc.suffix)
	if !ok {
		return quantity{}, errQuantitySuffix
	}
	if q, ok, err := fastQuantity(str, sc, exponent, format); ok || err != nil {
		return q, err
	}
	return slowQuantity(sc, base, exponent, format)
}

// quantityScan is the text of a quantity cut into its parts.
type quantityScan struct {
	negative bool
	// number is the numeric part as written (sign, leading zeros, point).
	number string
	// whole are the digits before the point without their leading zeros
	// ("0" when none), fraction the digits after it.
	whole, fraction string
	suffix          string
}

// scanQuantity cuts a quantity text into sign, number and suffix as
// Kubernetes' scanner does, with its leniencies: a lone sign or point is a
// zero, "1." has an empty fraction, and scanning stops at the end of the
// text wherever it is.
func scanQuantity(str string) (quantityScan, error) {
	var sc quantityScan
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		sc.negative = true
		pos++
	case '+':
		pos++
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		sc.whole, sc.number = "0", "0"
		return sc, nil
	}
	sc.whole, pos = digitsAt(str, pos)
	if pos >= end {
		sc.number = str
		return sc, nil
	}
	if sc.whole == "" {
		sc.whole = "0"
	}
	if str[pos] == '.' {
		sc.fraction, pos = digitsAt(str, pos+1)
		if pos >= end {
			sc.number = str
			return sc, nil
		}
	}
	sc.number = str[:pos]
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	if _, pos = digitsAt(str, pos); pos < end {
		return quantityScan{}, errQuantityFormat
	}
	sc.suffix = str[suffixStart:]
	return sc, nil
}

// digitsAt returns the run of decimal digits of str at pos and the position
// after it.
func digitsAt(str string, pos int) (digits string, next int) {
	next = pos
	for next < len(str) && str[next] >= '0' && str[next] <= '9' {
		next++
	}
	return str[pos:next], next
}

// decimalSuffixes are the decimal suffixes by their power of ten.
var decimalSuffixes = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// decimalNames are the decimal suffixes of 10^-9, 10^-6, ... 10^18.
var decimalNames = [...]string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}

// binaryNames are the binary suffixes of 1024^0 ... 1024^6.
var binaryNames = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// binarySuffixes are the binary suffixes by their power of two.
var binarySuffixes = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

// quantitySuffix interprets a suffix: its base, exponent and format.
func quantitySuffix(s string) (base, exponent int32, format quantityFormat, ok bool) {
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, decimalSI, true
	}
	if e, ok := binarySuffixes[s]; ok {
		return 2, e, binarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		n, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, decimalExponent, false
		}
		return 10, int32(n), decimalExponent, true // truncated to 32 bits, as upstream
	}
	return 0, 0, decimalExponent, false
}

// fastQuantity is upstream's exact 64-bit path: ok is false when the value
// needs the general path (too many digits, below nanos, or a binary value
// beyond 64 bits).
func fastQuantity(str string, sc quantityScan, exponent int32, format quantityFormat) (quantity, bool, error) {
	n, mult, scale, ok := fastParts(sc, exponent, format)
	if !ok {
		return quantity{}, false, nil
	}
	q := newQuantity(sc.negative, new(big.Int).SetInt64(n*mult), int64(scale), format)
	q.held = heldQuantity{value: n * mult, scale: int64(scale)}
	if sc.negative {
		q.held.value = -q.held.value
	}
	// Upstream keeps the text when it already looks canonical.
	digits := sc.whole + sc.fraction
	switch format {
	case binarySI:
		if n&7 != 0 {
			q.text = str
		}
	default:
		if scale%3 == 0 && !strings.HasSuffix(digits, "000") && digits[0] != '0' {
			q.text = str
		}
	}
	return q, true, nil
}

// fastParts are the number n (the written digits), its multiplier and its
// power of ten on the 64-bit path, ok false when the general path is needed.
// At most 18 digits are parsed, so the parse itself cannot fail.
func fastParts(sc quantityScan, exponent int32, format quantityFormat) (n, mult int64, scale int32, ok bool) {
	var precision int32
	mult = 1
	switch format {
	case binarySI:
		if sc.fraction != "" {
			return 0, 0, 0, false
		}
		mult = int64(1) << uint(exponent)
		precision = 15 - int32(len(sc.whole)) - exponent*3/10 - 1
	default:
		scale = exponent
		precision = 18 - int32(len(sc.whole)+len(sc.fraction))
	}
	if precision < 0 {
		return 0, 0, 0, false
	}
	scale -= int32(len(sc.fraction))
	if scale < -9 {
		return 0, 0, 0, false
	}
	for _, part := range [2]string{sc.whole, sc.fraction} {
		for i := 0; i < len(part); i++ {
			n = n*10 + int64(part[i]-'0')
		}
	}
	if n != 0 && mult != 1 && n > (1<<63-1)/mult {
		return 0, 0, 0, false // beyond 64 bits: the general path
	}
	return n, mult, scale, true
}

// checkQuantity reports whether a quantity parses, as parseQuantity would,
// without computing its value.
func checkQuantity(str string) error {
	if str == "" {
		return errQuantityFormat
	}
	if str == "0" {
		return nil
	}
	sc, err := scanQuantity(str)
	if err != nil {
		return err
	}
	_, exponent, format, ok := quantitySuffix(sc.suffix)
	if !ok {
		return errQuantitySuffix
	}
	if _, _, _, ok := fastParts(sc, exponent, format); ok {
		return nil
	}
	if strings.IndexFunc(sc.number, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return errQuantityNumeric // the general path needs a digit
	}
	return nil
}

// nanoDigits is 10^9.
var nanoDigits = big.NewInt(1_000_000_000)

// maxQuantity is 2^63-1, the cap of a binary quantity.
var maxQuantity = big.NewInt(1<<63 - 1)

// slowQuantity is upstream's general path: the number as written, times its
// suffix, rounded up to nanos; a binary value capped at 2^63-1 and written
// as decimal when below 1.
func slowQuantity(sc quantityScan, base, exponent int32, format quantityFormat) (quantity, error) {
	if strings.IndexFunc(sc.number, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return quantity{}, errQuantityNumeric
	}
	digits := strings.TrimLeft(sc.number, "+-")
	whole, frac, _ := strings.Cut(digits, ".")
	mant, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return quantity{}, errQuantityNumeric
	}
	exp := -int64(len(frac))
	if base == 10 {
		exp += int64(exponent)
	} else {
		mant.Lsh(mant, uint(exponent))
	}
	q := newQuantity(sc.negative, mant, exp, format)
	if q.mant.Sign() == 0 {
		// Not rounded: the inf.Dec keeps the scale it was read with.
		q.held = heldQuantity{dec: true, unscaled: "0", scale: -int64(len(frac))}
		if base == 10 {
			q.held.scale += int64(exponent)
		}
		return q, nil
	}
	q.roundUp(-9)
	// Rounded to nanos: the inf.Dec's scale is 9.
	q.held = heldQuantity{dec: true, neg: q.neg, scale: -9}
	if format == binarySI {
		if q.cmpAbs(maxQuantity) > 0 {
			q.mant, q.exp = new(big.Int).Set(maxQuantity), 0
			q.held.scale = 0 // capped: the inf.Dec of 2^63-1
		}
		if q.cmpAbs(big.NewInt(1)) < 0 {
			q.format = decimalSI // between 0 and 1: written as decimal
		}
	}
	// The unscaled magnitude is mant×10^(exp-scale), mant without trailing
	// zeros: written as its digits and its count of zeros, never expanded
	// (an exponent can be as large as 2^31).
	q.held.unscaled = q.mant.String() + "e" + strconv.FormatInt(q.exp-q.held.scale, 10)
	return q, nil
}

// newQuantity is ±mant×10^exp with mant's trailing zeros moved into exp.
func newQuantity(neg bool, mant *big.Int, exp int64, format quantityFormat) quantity {
	q := quantity{neg: neg, mant: mant, exp: exp, format: format}
	if mant.Sign() == 0 {
		q.exp = 0
		return q
	}
	if mant.IsInt64() {
		n := mant.Int64()
		for n%10 == 0 {
			n /= 10
			q.exp++
		}
		q.mant = mant.SetInt64(n)
		return q
	}
	digits := mant.String() // linear, where dividing by ten again and again is not
	trimmed := strings.TrimRight(digits, "0")
	if len(trimmed) < len(digits) {
		q.exp += int64(len(digits) - len(trimmed))
		q.mant.SetString(trimmed, 10)
	}
	return q
}

// roundUp rounds the magnitude up (away from zero) to a multiple of
// 10^scale when it has digits below that, as resource.Quantity's RoundUp
// does; the value is then written in its canonical form (the kept text is
// dropped). A value already a multiple of 10^scale is left as it is.
func (q *quantity) roundUp(scale int64) {
	if q.mant.Sign() == 0 || q.exp >= scale {
		return
	}
	drop := scale - q.exp // digits below 10^scale
	if drop >= int64(len(q.mant.String())) {
		q.mant, q.exp, q.text = big.NewInt(1), scale, "" // below one unit: one unit
		return
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(drop), nil)
	var rem big.Int
	q.mant.QuoRem(q.mant, div, &rem)
	if rem.Sign() != 0 {
		q.mant.Add(q.mant, big.NewInt(1))
	}
	*q = newQuantity(q.neg, q.mant, scale, q.format)
}

// cmpAbs compares the magnitude with a whole number.
func (q *quantity) cmpAbs(n *big.Int) int {
	if q.exp > 40 {
		return 1 // far beyond any 64-bit number
	}
	v := new(big.Int).Set(q.mant)
	d := new(big.Int).Set(n)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(q.exp)), nil)
	if q.exp >= 0 {
		v.Mul(v, pow)
	} else {
		d.Mul(d, pow)
	}
	return v.Cmp(d)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// kiloByte is 1024.
var kiloByte = big.NewInt(1024)

// String is the quantity as written back: the kept text, else the canonical
// form (see CanonicalQuantity).
func (q quantity) String() string {
	if q.text != "" {
		return q.text
	}
	if q.mant.Sign() == 0 {
		return "0"
	}
	sign := ""
	if q.neg {
		sign = "-"
	}
	format := q.format
	if format == binarySI && (q.cmpAbs(kiloByte) < 0 || q.exp < 0) {
		format = decimalSI // below 1024 in magnitude, or not whole
	}
	if format == binarySI {
		v := new(big.Int).Mul(q.mant, new(big.Int).Exp(big.NewInt(10), big.NewInt(q.exp), nil))
		power := 0
		var quo, rem big.Int
		for {
			quo.QuoRem(v, kiloByte, &rem)
			if rem.Sign() != 0 {
				break
			}
			v.Set(&quo)
			power++
		}
		suffix := ""
		if power < len(binaryNames) {
			suffix = binaryNames[power]
		}
		return sign + v.String() + suffix
	}
	// Digits and a power of ten that is a multiple of 3, rounded down.
	mant, exp := new(big.Int).Set(q.mant), q.exp
	for exp%3 != 0 {
		mant.Mul(mant, big.NewInt(10))
		exp--
	}
	suffix := ""
	if format == decimalExponent {
		if exp != 0 {
			suffix = "e" + strconv.FormatInt(exp, 10)
		}
	} else if exp >= -9 && exp <= 18 {
		suffix = decimalNames[(exp+9)/3]
	}
	return sign + mant.String() + suffix
}
