; php: no type facts mined yet.
