package server

// sessionRoutes: sessions, messages, sending and per-session events. Not written yet: it answers no route.
func (s *Server) sessionRoutes() []route { return nil }

// closeStreams ends every open event stream (none yet).
func (s *Server) closeStreams() {}
