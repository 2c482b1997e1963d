; PHP raw references. Qualified names (`\App\helper`) are split by the miner
; into qualifier and name.

(function_call_expression
  function: [(name) (qualified_name) (relative_name)] @name) @reference.call

(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

; Foo::make() / parent::__construct() / static::create()
(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

(object_creation_expression
  [(name) (qualified_name) (relative_name)] @name) @reference.instantiate

; use App\Models\User; / use Vendor\Lib as L; / use function App\helper;
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name
      prefix: (_) @path
      (name) @name)
    alias: (name)? @alias)) @reference.import

(namespace_use_declaration
  (namespace_use_clause .
    (name) @name
    alias: (name)? @alias)) @reference.import

; use App\Support\{Str, Arr as A};
(namespace_use_declaration
  (namespace_name) @path
  body: (namespace_use_group
    (namespace_use_clause .
      [(name) (qualified_name)] @name
      alias: (name)? @alias))) @reference.import

(base_clause
  [(name) (qualified_name) (relative_name)] @name) @reference.inherit

(class_interface_clause
  [(name) (qualified_name) (relative_name)] @name) @reference.inherit

; Traits used in a class body.
(use_declaration
  [(name) (qualified_name) (relative_name)] @name) @reference.inherit

(member_access_expression
  object: (_) @receiver
  name: (name) @name) @reference.field_use

(nullsafe_member_access_expression
  object: (_) @receiver
  name: (name) @name) @reference.field_use

; self::$count / Config::$cache
(scoped_property_access_expression
  scope: (_) @receiver
  name: (variable_name (name) @name)) @reference.field_use

; Suit::Hearts / self::MAX (not Foo::class)
(class_constant_access_expression
  (_) @receiver .
  (name) @name .
  (#not-eq? @name "class")) @reference.field_use
