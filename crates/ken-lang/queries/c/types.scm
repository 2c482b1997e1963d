; c: no type facts mined yet.
