package manifest

import (
	"fmt"
	"io"
	"os"
)

// DefaultMaxInputBytes is the default of Options.MaxInputBytes: 1 GiB, the
// size of the largest world a scenario can hold with room to spare (a
// CloneSet at the cluster limit of 150,000 pods with their PVCs is a few
// hundred MB of JSON as kubectl writes it). Loading costs about 7 bytes of
// memory per byte of JSON and about 30 per byte of YAML (docs/reliability.md),
// so programs with less memory set a smaller limit.
const DefaultMaxInputBytes = 1 << 30

// maxInputBytes is the effective limit of o.
func (o Options) maxInputBytes() int64 {
	if o.MaxInputBytes <= 0 {
		return DefaultMaxInputBytes
	}
	return o.MaxInputBytes
}

// tooLarge is the error for an input of size bytes (at least) from source.
func (o Options) tooLarge(source string, size int64) error {
	return fmt.Errorf("%s: the input is %d bytes or more, above the limit of %d bytes (manifest.Options.MaxInputBytes)", source, size, o.maxInputBytes())
}

// checkTotal refuses inputs whose sizes add up to more than the limit.
func (o Options) checkTotal(inputs []input) error {
	var total int64
	for _, in := range inputs {
		total += int64(len(in.data))
		if total > o.maxInputBytes() {
			return o.tooLarge(in.source, total)
		}
	}
	return nil
}

// ReadAll reads r to its end, refusing an input larger than the limit
// (Options.MaxInputBytes) once the limit is passed, without reading the
// rest: what Load and LoadAll do with their reader, for a caller that reads
// an input once for several uses (the CLI's standard input). source names
// the input in errors.
func (o Options) ReadAll(r io.Reader, source string) ([]byte, error) {
	limit := o.maxInputBytes()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	if int64(len(data)) > limit {
		return nil, o.tooLarge(source, int64(len(data)))
	}
	return data, nil
}

// readFile reads a file, refusing one larger than the limit before reading
// it.
func (o Options) readFile(path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > o.maxInputBytes() {
		return nil, o.tooLarge(path, st.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.ReadAll(f, path)
}

// Bounds of a Simulation document (LoadSimulation), the sizes of a real
// cluster and run: a Kubernetes cluster holds at most 5,000 nodes (the
// documented scalability limit), and a simulation keeps every round in its
// result, so its rounds are bounded too. Larger values are refused with an
// error naming the field; package sim applies the same bounds to a Config
// built in Go.
const (
	MaxSimulationNodes = 5000
	MaxSimulationSteps = 100_000
)
