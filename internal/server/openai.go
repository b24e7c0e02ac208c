package server

// openAIRoutes: the OpenAI-compatible endpoint. Not written yet: it answers no route.
func (s *Server) openAIRoutes() []route { return nil }
