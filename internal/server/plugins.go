package server

// pluginRoutes: plugins: list, state, enable, disable, reload. Not written yet: it answers no route.
func (s *Server) pluginRoutes() []route { return nil }
