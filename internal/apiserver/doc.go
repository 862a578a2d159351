// Package apiserver is an in-memory stand-in for the parts of the Kubernetes
// API server that a CloneSet controller's writes reach, for tests that carry
// out the library's requests and compare the result with what the real
// controller left on a server.
//
// Objects are raw JSON trees (map[string]any, as encoding/json decodes them),
// keyed by resource, namespace and name. The store applies creates, deletes
// and the three patch types (JSON merge patch, strategic merge patch, JSON
// patch) with the API server's semantics for the fields those requests touch:
// preconditions, the status subresource, finalizers and generated names,
// and, for pods, the update rules of a current API server (Kubernetes 1.32
// and later): the few spec fields a pod update may change, and the
// pods/resize subresource for container resources.
// The package also holds the comparison of a round's writes with a recorded
// reference (see Compare).
//
// It is internal to the module and imported by tests only: the library's
// production code must not depend on it, and it depends on nothing in the
// library, so that it checks the library's requests independently.
package apiserver
