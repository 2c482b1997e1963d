; cpp: no type facts mined yet.
