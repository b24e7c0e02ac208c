package server

// uiRoutes: the web UI's files (web/). Not written yet: it answers no route.
func (s *Server) uiRoutes() []route { return nil }
