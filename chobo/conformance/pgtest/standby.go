package pgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LaunchStandby makes a streaming standby of s from a base backup of it
// (pg_basebackup -c fast, through a replication slot that keeps the WAL
// the standby has not received) and starts it on a socket and port of its
// own. The caller must Stop it. s must run.
//
// Whether the standby is synchronous is the primary's setting
// (synchronous_standby_names): the standby names itself "standby".
func (s *Server) LaunchStandby() (*Server, error) {
	rootDir, err := os.MkdirTemp(clusterBase(s.runAs != ""), "chobo-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %v", err)
	}
	st := &Server{
		Dir:       filepath.Join(rootDir, "data"),
		SocketDir: filepath.Join(rootDir, "s"),
		Port:      s.Port,
		bin:       s.bin,
		runAs:     s.runAs,
		uid:       s.uid,
		gid:       s.gid,
		rootDir:   rootDir,
		logFile:   filepath.Join(rootDir, "server.log"),
		recPath:   filepath.Join(registryDir(), filepath.Base(rootDir)+".json"),
	}
	if err := st.startStandby(s); err != nil {
		_ = st.Stop()
		return nil, fmt.Errorf("pgtest: standby: %v", err)
	}
	return st, nil
}

func (st *Server) startStandby(primary *Server) error {
	if err := st.record(); err != nil {
		return err
	}
	if err := os.Mkdir(st.SocketDir, 0o700); err != nil {
		return err
	}
	if st.runAs != "" {
		for _, d := range []string{st.rootDir, st.SocketDir} {
			if err := os.Chown(d, st.uid, st.gid); err != nil {
				return err
			}
		}
	}
	slot := "standby_" + filepath.Base(st.rootDir)[len("chobo-pg-"):]
	out, err := st.run("pg_basebackup", "-D", st.Dir, "-h", primary.SocketDir, "-p", fmt.Sprint(primary.Port), "-U", User,
		"-c", "fast", "-X", "stream", "-C", "-S", sanitizeSlot(slot), "-R", "-d", "application_name=standby")
	if err != nil {
		return fmt.Errorf("pg_basebackup: %v\n%s", err, out)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.serve()
}

// sanitizeSlot keeps the characters a replication slot's name may have.
func sanitizeSlot(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Crash ends the postmaster and every session at once (an immediate
// shutdown: no checkpoint, as after a crash), leaving the data directory
// for inspection; Stop still removes it.
func (s *Server) Crash() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("pgtest: Crash of a stopped server")
	}
	return s.shutdown("immediate")
}

// Promote makes a standby a primary and waits until it takes writes.
func (s *Server) Promote() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out, err := s.run("pg_ctl", "-D", s.Dir, "-w", "-t", "60", "promote"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl promote: %v\n%s\nserver log:\n%s", err, out, s.logTail())
	}
	return nil
}
