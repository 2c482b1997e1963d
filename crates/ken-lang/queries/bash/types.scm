; bash: no type facts.
