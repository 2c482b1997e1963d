; ruby: no type facts mined yet.
