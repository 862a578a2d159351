package pvc

import (
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Alphabet is the set of characters of a generated instance id: Kubernetes'
// rand.String alphabet (no vowels, no 0, 1, 3), 27 characters (5.1).
const Alphabet = "bcdfghjklmnpqrstvwxz2456789"

// IDLength is the length of a generated instance id (5.1).
const IDLength = 5

// idSpace is the number of distinct generated ids: 27^5.
const idSpace = 27 * 27 * 27 * 27 * 27

// FNV-1a 64-bit parameters (7.2 step 2).
const (
	fnvOffset64 uint64 = 14695981039346656037
	fnvPrime64  uint64 = 1099511628211
)

func fnvAddString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

func fnvAddBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime64
	}
	return h
}

// IDSeed is what the instance ids generated in one round depend on besides
// the candidate index (docs/spec/scale-and-budgets.md 7.2 step 1): the
// CloneSet's identity, and what moves from one round to the next, so that
// the sequence does not start over every round and hand out again the id of
// a pod that is gone.
type IDSeed struct {
	// UID is the CloneSet's metadata.uid (may be empty).
	UID string
	// Name is the CloneSet's metadata.name.
	Name string
	// Now is the round's clock (the scenario's now), read to the nanosecond
	// as seconds and nanoseconds since the Unix epoch: its location and
	// monotonic reading do not matter.
	Now time.Time
	// Generation is the CloneSet's metadata.generation.
	Generation int64
	// ResourceVersion is the CloneSet's metadata.resourceVersion (may be
	// empty).
	ResourceVersion string
}

// SeedOf returns the IDSeed of a round of cs at now. A nil CloneSet counts
// as one with every field empty.
func SeedOf(cs *model.CloneSet, now time.Time) IDSeed {
	seed := IDSeed{UID: csUID(cs), Name: csName(cs), Now: now}
	if cs != nil {
		seed.Generation, seed.ResourceVersion = cs.Generation, cs.ResourceVersion
	}
	return seed
}

// prefixHash returns the FNV-1a state after the seed's part of the hashed
// bytes: uid, name, seconds, nanoseconds, generation and resourceVersion,
// each followed by "\x00" (7.2 step 1).
func (s IDSeed) prefixHash() uint64 {
	var num [24]byte
	h := fnvAddString(fnvOffset64, s.UID)
	h = fnvAddString(h, "\x00")
	h = fnvAddString(h, s.Name)
	h = fnvAddString(h, "\x00")
	for _, v := range [...]int64{s.Now.Unix(), int64(s.Now.Nanosecond()), s.Generation} {
		h = fnvAddBytes(h, strconv.AppendInt(num[:0], v, 10))
		h = fnvAddString(h, "\x00")
	}
	h = fnvAddString(h, s.ResourceVersion)
	return fnvAddString(h, "\x00")
}

// encodeID turns a number into IDLength characters of Alphabet, least
// significant base-27 digit first (7.2 step 3).
func encodeID(h uint64) string {
	var b [IDLength]byte
	encodeInto(&b, h)
	return string(b[:])
}

// GenerateID returns candidate number k of the instance-id sequence of one
// round (docs/spec/scale-and-budgets.md 7.2 steps 1-3): the 64-bit FNV-1a
// hash of the seed's bytes (uid, name, the clock's seconds and nanoseconds,
// generation and resourceVersion, each followed by "\x00") and decimal(k),
// written as five base-27 digits over Alphabet, least significant first. It
// does not check exclusions; AllocateIDs does. k is meant to be 0, 1, 2, ...;
// a negative k is hashed with its sign, which keeps the function total.
func GenerateID(seed IDSeed, k int) string {
	var buf [24]byte
	return encodeID(fnvAddBytes(seed.prefixHash(), strconv.AppendInt(buf[:0], int64(k), 10)))
}

// IsGeneratedForm reports whether id has the shape of a generated id: IDLength
// characters of Alphabet. Reused ids (5.5) may have any shape.
func IsGeneratedForm(id string) bool {
	_, ok := decodeID(id)
	return ok
}

// decodeID is the inverse of encodeID: the number of a generated-form id.
func decodeID(id string) (uint64, bool) {
	if len(id) != IDLength {
		return 0, false
	}
	var v uint64
	for i := IDLength - 1; i >= 0; i-- {
		d := alphabetIndex[id[i]]
		if d < 0 {
			return 0, false
		}
		v = v*27 + uint64(d)
	}
	return v, true
}

var alphabetIndex = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(Alphabet); i++ {
		t[Alphabet[i]] = int8(i)
	}
	return t
}()

func csName(cs *model.CloneSet) string {
	if cs == nil {
		return ""
	}
	return cs.Name
}

func csUID(cs *model.CloneSet) string {
	if cs == nil {
		return ""
	}
	return cs.UID
}

// PodName returns the name of the CloneSet's pod with instance id id:
// "<cloneset-name>-<id>" (5.1). A nil CloneSet counts as one with an empty name.
func PodName(cs *model.CloneSet, id string) string {
	return csName(cs) + "-" + id
}

// ClaimName returns the name of the PVC that volume claim template templateName
// gives the pod with instance id id: "<template>-<cloneset-name>-<id>" (5.1).
func ClaimName(templateName string, cs *model.CloneSet, id string) string {
	return templateName + "-" + csName(cs) + "-" + id
}

// InstanceIDOf returns the instance-id label of a PVC ("" when absent or when
// pvc is nil). An absent label and an empty value are the same to every rule of
// this package, as they are to upstream's map lookups.
func InstanceIDOf(pvc *model.PVC) string {
	if pvc == nil {
		return ""
	}
	return pvc.Labels[model.LabelInstanceID]
}

// podID returns the instance-id label of a pod, "" for a nil pod.
func podID(p *model.Pod) string {
	if p == nil {
		return ""
	}
	return p.InstanceID()
}
