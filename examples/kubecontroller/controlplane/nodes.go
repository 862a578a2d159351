package controlplane

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node labels the control plane sets on its nodes.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelZone     = "topology.kubernetes.io/zone"
)

// DefaultNodeCapacity is the capacity (and allocatable) of a node created
// without one: room for hundreds of pods.
func DefaultNodeCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourcePods:   resource.MustParse("1000"),
		corev1.ResourceCPU:    resource.MustParse("1000"),
		corev1.ResourceMemory: resource.MustParse("1Ti"),
	}
}

// Node describes a kwok node to create.
type Node struct {
	// Name is the node's name and its kubernetes.io/hostname label.
	Name string
	// Zone is its topology.kubernetes.io/zone label (none when empty).
	Zone string
	// Labels are added to the node's labels.
	Labels map[string]string
	// Capacity is its capacity and allocatable; DefaultNodeCapacity when
	// nil.
	Capacity corev1.ResourceList
	// Taints are its spec.taints.
	Taints []corev1.Taint
}

// ZoneName is the name of the i-th zone of Options.Zones: zone-a, zone-b,
// ..., zone-z, then zone-26, zone-27, ...
func ZoneName(i int) string {
	if i < 26 {
		return "zone-" + string(rune('a'+i))
	}
	return fmt.Sprintf("zone-%d", i)
}

// CreateNode creates a node kwok manages: the kwok annotation, the hostname
// and zone labels, its capacity, a kubelet version equal to the API
// server's and an InternalIP of its own (10.255.x.y). kwok then reports it
// Ready, and kube-controller-manager removes the not-ready taint the API
// server put on it; Start waits for that, CreateNode does not.
func (cp *ControlPlane) CreateNode(ctx context.Context, n Node) error {
	cp.mu.Lock()
	index := cp.nodeIndex
	cp.nodeIndex++
	cp.mu.Unlock()
	labels := map[string]string{
		LabelHostname:        n.Name,
		"kubernetes.io/os":   "linux",
		"kubernetes.io/arch": "amd64",
		"type":               "kwok",
	}
	if n.Zone != "" {
		labels[LabelZone] = n.Zone
	}
	maps.Copy(labels, n.Labels)
	capacity := n.Capacity
	if capacity == nil {
		capacity = DefaultNodeCapacity()
	}
	ip := net.IPv4(10, 255, byte((index+1)>>8), byte(index+1)).String()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        n.Name,
			Labels:      labels,
			Annotations: map[string]string{NodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{Taints: n.Taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: ip},
				{Type: corev1.NodeHostName, Address: n.Name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:            "amd64",
				OperatingSystem:         "linux",
				KubeletVersion:          cp.version.GitVersion,
				ContainerRuntimeVersion: "kwok",
				KernelVersion:           "kwok",
				OSImage:                 "kwok",
			},
		},
	}
	if _, err := cp.clientset.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("controlplane: create node %s: %w", n.Name, err)
	}
	cp.mu.Lock()
	cp.nodes = append(cp.nodes, n.Name)
	cp.mu.Unlock()
	return nil
}

// NodeNames lists the nodes created by Start and CreateNode, in creation
// order.
func (cp *ControlPlane) NodeNames() []string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return slices.Clone(cp.nodes)
}

// nodesReady checks that every node created is Ready and, when
// untainted is set, has no not-ready taint left.
func (cp *ControlPlane) nodesReady(ctx context.Context, untainted bool) error {
	for _, name := range cp.NodeNames() {
		node, err := cp.clientset.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ready := false
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return fmt.Errorf("node %s is not Ready", name)
		}
		if !untainted {
			continue
		}
		for _, t := range node.Spec.Taints {
			if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
				return fmt.Errorf("node %s still has the taint %s:%s", name, t.Key, t.Effect)
			}
		}
	}
	return nil
}
