// ConfigNode (being written).
