//go:build tools

// Package tools pins the Kubernetes control-plane components the example's
// tests run against: kube-apiserver, kube-scheduler and
// kube-controller-manager from k8s.io/kubernetes, the etcd server, and kwok.
// Nothing imports it; the controlplane package builds its main packages
// with `go build` inside this module, so the versions in this go.mod are the
// versions tested.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
