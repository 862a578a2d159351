package installtest

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// Endpoint stands in for the webhook Service: a TCP forwarder on loopback
// that sends each connection to one of its backends (the webhook servers
// of ready controller processes), taking them in turn and skipping one that
// does not accept (a process killed); with no backend accepting, the
// connection is closed, as a Service without ready endpoints refuses it.
// TLS passes through: the API server verifies the backend's certificate.
type Endpoint struct {
	l net.Listener

	mu       sync.Mutex
	backends []string
	next     int
	conns    map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// dialTimeout bounds a connection to a backend.
const dialTimeout = time.Second

// NewEndpoint listens on a free loopback port and forwards until Close.
func NewEndpoint() (*Endpoint, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &Endpoint{l: l, conns: map[net.Conn]struct{}{}}
	e.wg.Add(1)
	go e.serve()
	return e, nil
}

// Addr is the Endpoint's host:port.
func (e *Endpoint) Addr() string { return e.l.Addr().String() }

// Add adds a backend (host:port).
func (e *Endpoint) Add(addr string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !slices.Contains(e.backends, addr) {
		e.backends = append(e.backends, addr)
	}
}

// Remove removes a backend.
func (e *Endpoint) Remove(addr string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.backends = slices.DeleteFunc(e.backends, func(b string) bool { return b == addr })
}

// Backends are the backends, in order.
func (e *Endpoint) Backends() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.backends)
}

// Close stops listening and closes every connection it forwards.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for c := range e.conns {
		c.Close()
	}
	e.mu.Unlock()
	err := e.l.Close()
	e.wg.Wait()
	return err
}

func (e *Endpoint) serve() {
	defer e.wg.Done()
	for {
		c, err := e.l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if !e.track(c) {
			c.Close()
			return
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.forward(c)
		}()
	}
}

// track records an open connection (false once closed).
func (e *Endpoint) track(c net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.conns[c] = struct{}{}
	return true
}

func (e *Endpoint) untrack(c net.Conn) {
	e.mu.Lock()
	delete(e.conns, c)
	e.mu.Unlock()
}

// candidates are the backends in the order of this connection's turn.
func (e *Endpoint) candidates() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(e.backends)
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, e.backends[(e.next+i)%n])
	}
	e.next++
	return out
}

// forward pipes client to the first backend that accepts.
func (e *Endpoint) forward(client net.Conn) {
	defer client.Close()
	defer e.untrack(client)
	var backend net.Conn
	for _, addr := range e.candidates() {
		b, err := net.DialTimeout("tcp", addr, dialTimeout)
		if err == nil {
			backend = b
			break
		}
	}
	if backend == nil {
		return
	}
	if !e.track(backend) {
		backend.Close()
		return
	}
	defer e.untrack(backend)
	defer backend.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(backend, client)
	go pipe(client, backend)
	<-done
	<-done
}
