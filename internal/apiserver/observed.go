package apiserver

// Observed returns a store holding objects read back from another server
// (a real kube-apiserver, say) with the journal of what a round did there,
// so that Compare can judge writes this package did not carry out itself.
// The objects are copied; an object without a namespace keeps none.
func Observed(now string, objects map[Key]Object, journal []Op) *Store {
	s := NewStore(now)
	for k, o := range objects {
		s.objects[k] = copyObject(o)
	}
	s.journal = append([]Op(nil), journal...)
	return s
}
