// Package controlplane builds and runs a real Kubernetes control plane for
// tests and tools: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok (which plays the kubelets of fake nodes), as
// processes of the calling program, built from the versions pinned by the
// tools module (examples/kubecontroller/tools/go.mod: k8s.io/kubernetes
// v1.37.2, etcd v3.7.3, kwok v0.8.0).
//
// # Binaries
//
// Binaries(ctx) returns a directory holding the five binaries, building the
// missing ones first (go build -C <tools module>; a cold kube-apiserver
// build takes about 11 minutes on two cores, a warm go build cache makes it
// a relink). The directory is $CLONESET_CONTROLPLANE_BIN when set (used as
// is), else a directory of os.UserCacheDir() keyed by the tools module's
// go.mod and go.sum and the build recipe: builds happen once per machine and
// version. Concurrent builders serialize on a lock file. Build before the
// tests, whose default timeout is 10 minutes:
//
//	go run ./cmd/controlplane build
//
// # Starting one
//
// In a test:
//
//	cp := controlplane.StartForTest(t, controlplane.Options{Nodes: 3, Zones: 3})
//	c, err := cp.Client(scheme) // controller-runtime client, user admin
//
// or, for several tests of a package sharing one, Start in TestMain (or
// lazily, once) and Stop after m.Run. Start returns when the control plane
// is usable: the API server ready, kube-controller-manager and
// kube-scheduler healthy, the default service account in namespace default,
// every node Ready and without its not-ready taint. Measured on two shared
// cores: Start 3.5-7.5 s (etcd 0.2-0.6 s, kube-apiserver 2.5-4 s, the rest
// 1-2 s; etcd and kube-apiserver alone about 3 s), Stop 1.2-1.6 s.
//
// A new namespace gets its default service account from
// kube-controller-manager a moment after it is created, and the API server
// refuses pods until then: CreateNamespace creates one and waits for it.
//
// Options choose the nodes (Nodes, Zones; more with CreateNode), an audit
// policy (AuditPolicy; AuditPolicyWrites records pod, PVC, revision and
// CloneSet writes; AuditEvents reads the log back), extra API server flags
// (APIServerFlags, e.g. --max-mutating-requests-inflight=1), components to
// leave out (WithoutScheduler, WithoutControllerManager, WithoutKwok),
// extra kwok stages (Stages) and where the logs go (LogDir).
//
// The control plane gives: Config (a rest.Config for user admin in
// system:masters, client-side rate limiting off), KubeconfigPath, Client
// (controller-runtime, with a scheme of the caller's), Clientset,
// UserConfig and UserKubeconfig (a client certificate for any user and
// groups: the audit log then tells that user's writes apart), Version
// (/version: v1.37.2), Dir, LogDir, LogPath, LogTails and NodeNames. The
// components authenticate as AdminUser, SchedulerUser,
// ControllerManagerUser and KwokUser.
//
// # Faults
//
// StopComponent, KillComponent and StartComponent stop (SIGTERM, then
// SIGKILL), kill (SIGKILL) and start again one component with the same
// flags, ports and data, and StartComponent waits until it is ready again;
// StopAPIServer, StartAPIServer, StopEtcd and StartEtcd name the usual two.
// etcd keeps its data directory: objects survive its restart (it runs
// with --unsafe-no-fsync: data survives a stopped or killed process, not a
// crash of the machine). Stopping etcd while the API server runs takes
// about 7 s (etcd waits for the API server's watch streams up to its
// request timeout); KillComponent(Etcd) is the quick crash. The audit log is appended to across API server
// restarts. StartProcess runs another program (the controller under test)
// under the same process hygiene, with KUBECONFIG set to the admin
// kubeconfig, and returns a Process with Stop, Kill, Wait and Done.
// Process(c) is a component's process; Usage gives any process's CPU time
// and peak resident memory (from /proc while it runs, from its exit status
// after), for benchmarks.
//
// # Process hygiene
//
// Every process is started in a process group of its own with
// Pdeathsig=SIGKILL, from one goroutine locked to its OS thread for the life
// of the program (Pdeathsig fires when the forking thread exits): when the
// program dies, however (a test timeout's panic, SIGKILL), the kernel kills
// every component. Stop sends SIGTERM to each group (clients, then the API
// server, then etcd), SIGKILL after DefaultStopGrace, waits, and removes
// the directory. The tests check that no process mentioning the
// directory is left after Stop, and after the test binary that started a
// control plane is killed with SIGKILL.
//
// # What kwok emulates (the stages)
//
// kwok runs with the Stage documents of Stages() only (written for this
// package from the kwok Stage API) and manages the nodes this package
// creates (annotation kwok.x-k8s.io/node=fake); it renews no lease in
// kube-node-lease, so the heartbeat stage's status patch (every 60 to 66 s)
// is the nodes' only sign of life. kube-controller-manager waits five
// minutes for one (--node-monitor-grace-period, 50 s by default) before it
// marks a node and its pods not Ready: on a loaded machine kwok patches
// late, and a pod made not Ready by the node lifecycle controller would be
// counted against the CloneSet controller's budgets (and its Ready
// condition's lastTransitionTime would move).
//
//   - Nodes: a node that is not Ready is initialized (the usual conditions,
//     Ready True, its addresses, allocatable = capacity); a Ready node has
//     its conditions' heartbeat refreshed every 60 to 66 seconds.
//   - Pods, one stage playing the kubelet (cloneset-pod-kubelet): whenever a
//     pod's status differs from what a kubelet would report for its spec,
//     the status is rewritten to that, so the stage never fires twice for
//     the same spec. A pod bound to a kwok node starts (phase Running,
//     startTime, hostIP, podIP from PodCIDR, Initialized,
//     PodReadyToStartContainers, ContainersReady and Ready) in tens of
//     milliseconds. Container statuses carry the spec image (":latest" added
//     to an untagged image, as the runtime reports it), an imageID derived
//     from the image ("<repository>@sha256:<sha256 of the image>"; for
//     an image of Options.ImageAliases, the imageID of the image it names:
//     two tags of one image report one imageID), a
//     containerID that changes at every restart, resources and
//     allocatedResources equal to the spec's.
//   - Readiness as the kubelet computes it: containers are ready unless the
//     pod has the label LabelNeverReady ("controlplane.cloneset.dev/never-ready":
//     "true"; the containers then run but are never ready); Ready is True
//     only when the containers are ready and every condition named in
//     spec.readinessGates is True (a missing one counts as not True), and
//     is recomputed whenever such a condition changes (the CloneSet
//     controller owns InPlaceUpdateReady; kwok never writes a gate's
//     condition).
//   - In-place updates as a kubelet does them: a changed image restarts the
//     container (new image and imageID, restartCount+1, lastState
//     terminated with exit code 0, new containerID and startedAt); changed
//     resources (pods/resize) show in the status' resources and
//     allocatedResources at once, without a restart unless the container's
//     resizePolicy says RestartContainer for a changed resource; the
//     PodResizePending and PodResizeInProgress conditions are removed;
//     status.observedGeneration follows metadata.generation.
//   - Deletes: a pod with a deletionTimestamp and no finalizer is deleted
//     (grace period 0), as a kubelet completes a graceful delete; a pod with
//     finalizers is left as it is (still Running and Ready) until they are
//     removed.
//
// Not emulated: probes and their timing (readiness is immediate), crash
// loops, init containers' and ephemeral containers' statuses, the
// transition through a not-ready window during a container restart, a
// terminating pod's containers stopping before its finalizers are removed,
// resize being deferred or infeasible (nodes are large), images that fail
// to pull, and node pressure. A test that needs one adds a stage of its own
// (Options.Stages) for pods labelled LabelCustomKubelet
// ("controlplane.cloneset.dev/custom-kubelet": "true"), which the built-in
// kubelet stage leaves alone (kwok picks at random among the stages
// matching an object, so two must not match the same one); the built-in
// delete stage still removes such pods once deleted, so a custom stage
// should not match a pod with a deletionTimestamp.
package controlplane
