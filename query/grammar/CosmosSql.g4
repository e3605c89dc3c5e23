// Cosmos DB for NoSQL query language, as the service accepts it.
//
// Sources: the Microsoft docs of the query language (SELECT, FROM, JOIN, subqueries, constants,
// keywords, operators) and the SDK's query-plan baselines (shared/query-plan-vectors.json).
// The parser (query/parser/parser.cc) turns the parse tree into our AST; no ANTLR type leaves it.
//
// Operator precedence, loosest first (see query/parser/parser.h for the reasoning):
//   ?:  ??  OR  AND  [NOT] BETWEEN/IN/LIKE  ||  |  ^  &  = != <>  < <= > >=  << >> >>>  + -  * / %
//   unary NOT - + ~   and the postfix accessors . [ ] on primaries.
grammar CosmosSql;

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

program : selectQuery EOF ;

selectQuery
    : selectClause fromClause? whereClause? groupByClause? orderByClause? offsetLimitClause?
    ;

selectClause : K_SELECT K_DISTINCT? topClause? selection ;

// TOP, OFFSET and LIMIT take an unsigned number or a parameter: `TOP -1` is a syntax error.
topClause : K_TOP countValue ;
countValue : NUMBER | PARAMETER ;

selection
    : '*'                                                                   # SelectStar
    | K_VALUE value=scalarExpression (K_AS? alias=identifier)?              # SelectValue
    | items+=selectItem (',' items+=selectItem)*                            # SelectList
    ;

selectItem : value=scalarExpression (K_AS? alias=identifier)? ;

fromClause : K_FROM sources+=fromSource (K_JOIN sources+=fromSource)* ;

fromSource
    : alias=identifier K_IN collection                                      # IteratedSource
    | collection (K_AS? alias=identifier)?                                  # AliasedSource
    ;

// A container, an earlier alias or a path below one; a function's result (JOIN x IN
// ObjectToArray(c.props), as the ObjectToArray page shows); or a subquery.
collection
    : functionCall                                                          # FunctionCollection
    | root=identifier steps+=pathStep*                                      # PathCollection
    | '(' selectQuery ')'                                                   # SubqueryCollection
    ;

pathStep
    : '.' identifier                                                        # PropertyStep
    | '[' key=(NUMBER | STRING) ']'                                         # IndexStep
    ;

whereClause : K_WHERE scalarExpression ;

groupByClause : K_GROUP K_BY keys+=scalarExpression (',' keys+=scalarExpression)* ;

// ORDER BY RANK takes scoring functions (FullTextScore, RRF, ...) instead of expressions.
orderByClause
    : K_ORDER K_BY rank=K_RANK scores+=scoreItem (',' scores+=scoreItem)*   # RankOrderBy
    | K_ORDER K_BY items+=orderItem (',' items+=orderItem)*                 # PlainOrderBy
    ;

orderItem : scalarExpression sortOrder? ;
scoreItem : functionCall sortOrder? ;
sortOrder : K_ASC | K_DESC ;

offsetLimitClause : K_OFFSET offset=countValue K_LIMIT limit=countValue ;

// ---------------------------------------------------------------------------------------------
// Expressions. ANTLR gives earlier alternatives of a left-recursive rule the higher precedence.
// ---------------------------------------------------------------------------------------------

// The logical layer. BETWEEN/IN/LIKE follow an operator expression and take operator
// expressions as bounds, so `a BETWEEN 1 AND 2 AND b` ends the BETWEEN at `2` and they don't chain.
scalarExpression
    : operand=operatorExpression tail=predicate?                            # OperatorScalar
    | left=scalarExpression K_AND right=scalarExpression                    # AndScalar
    | left=scalarExpression K_OR right=scalarExpression                     # OrScalar
    | <assoc=right> left=scalarExpression '??' right=scalarExpression       # CoalesceScalar
    | <assoc=right> condition=scalarExpression '?' ifTrue=scalarExpression
      ':' ifFalse=scalarExpression                                          # ConditionalScalar
    ;

predicate
    : negated=K_NOT? K_BETWEEN low=operatorExpression K_AND high=operatorExpression  # BetweenPredicate
    | negated=K_NOT? K_IN '(' items+=scalarExpression (',' items+=scalarExpression)* ')'  # InPredicate
    | negated=K_NOT? K_LIKE pattern=operatorExpression (K_ESCAPE escape=STRING)?  # LikePredicate
    ;

// Unary and binary operators, tightest first.
operatorExpression
    : primary=primaryExpression                                             # PrimaryOperand
    | op=(K_NOT | '-' | '+' | '~') operand=operatorExpression               # UnaryOperator
    | left=operatorExpression op=('*' | '/' | '%') right=operatorExpression # BinaryOperator
    | left=operatorExpression op=('+' | '-') right=operatorExpression       # BinaryOperator
    | left=operatorExpression op=('<<' | '>>' | '>>>') right=operatorExpression  # BinaryOperator
    | left=operatorExpression op=('<' | '<=' | '>' | '>=') right=operatorExpression  # BinaryOperator
    | left=operatorExpression op=('=' | '!=' | '<>') right=operatorExpression  # BinaryOperator
    | left=operatorExpression op='&' right=operatorExpression               # BinaryOperator
    | left=operatorExpression op='^' right=operatorExpression               # BinaryOperator
    | left=operatorExpression op='|' right=operatorExpression               # BinaryOperator
    | left=operatorExpression op='||' right=operatorExpression              # BinaryOperator
    ;

primaryExpression
    : name=identifier                                                       # IdentifierPrimary
    | PARAMETER                                                             # ParameterPrimary
    | value=literal                                                         # LiteralPrimary
    | '[' (items+=scalarExpression (',' items+=scalarExpression)*)? ']'     # ArrayPrimary
    | '{' (fields+=objectField (',' fields+=objectField)*)? '}'             # ObjectPrimary
    | '(' inner=scalarExpression ')'                                        # ParenthesizedPrimary
    | '(' selectQuery ')'                                                   # SubqueryPrimary
    | K_EXISTS '(' selectQuery ')'                                          # ExistsPrimary
    | K_ARRAY '(' selectQuery ')'                                           # ArraySubqueryPrimary
    | functionCall                                                          # CallPrimary
    | object=primaryExpression '.' name=identifier                          # PropertyPrimary
    | object=primaryExpression '[' index=scalarExpression ']'               # IndexPrimary
    ;

functionCall
    : (udf=K_UDF '.')? name=identifier
      '(' (arguments+=scalarExpression (',' arguments+=scalarExpression)*)? ')'
    ;

objectField : (quotedKey=STRING | key=identifier) ':' value=scalarExpression ;

literal : STRING | NUMBER | K_TRUE | K_FALSE | K_NULL | K_UNDEFINED ;

// RANK is only special right after ORDER BY, so it stays usable as a name elsewhere.
identifier : IDENTIFIER | K_RANK ;

// ---------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------

// Keywords are case-insensitive and reserved (`c.value` is a syntax error; write c["value"]).
K_AND : A N D ;
K_ARRAY : A R R A Y ;
K_AS : A S ;
K_ASC : A S C ;
K_BETWEEN : B E T W E E N ;
K_BY : B Y ;
K_DESC : D E S C ;
K_DISTINCT : D I S T I N C T ;
K_ESCAPE : E S C A P E ;
K_EXISTS : E X I S T S ;
K_FROM : F R O M ;
K_GROUP : G R O U P ;
K_IN : I N ;
K_JOIN : J O I N ;
K_LIKE : L I K E ;
K_LIMIT : L I M I T ;
K_NOT : N O T ;
K_OFFSET : O F F S E T ;
K_OR : O R ;
K_ORDER : O R D E R ;
K_RANK : R A N K ;
K_SELECT : S E L E C T ;
K_TOP : T O P ;
K_VALUE : V A L U E ;
K_WHERE : W H E R E ;

// The constants and the udf prefix are lower case only, as in the SDK grammar (TRUE is a name).
K_TRUE : 'true' ;
K_FALSE : 'false' ;
K_NULL : 'null' ;
K_UNDEFINED : 'undefined' ;
K_UDF : 'udf' ;

// Punctuation and operators, named so the parser can switch on them.
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
PLUS : '+' ;
MINUS : '-' ;
TILDE : '~' ;
SHIFT_LEFT : '<<' ;
SHIFT_RIGHT : '>>' ;
SHIFT_RIGHT_ZERO_FILL : '>>>' ;
LESS : '<' ;
LESS_EQUAL : '<=' ;
GREATER : '>' ;
GREATER_EQUAL : '>=' ;
EQUAL : '=' ;
NOT_EQUAL : '!=' ;
LESS_GREATER : '<>' ;
AMPERSAND : '&' ;
CARET : '^' ;
BAR : '|' ;
DOUBLE_BAR : '||' ;
DOUBLE_QUESTION : '??' ;
QUESTION : '?' ;
COLON : ':' ;
COMMA : ',' ;
DOT : '.' ;
LEFT_PAREN : '(' ;
RIGHT_PAREN : ')' ;
LEFT_BRACKET : '[' ;
RIGHT_BRACKET : ']' ;
LEFT_BRACE : '{' ;
RIGHT_BRACE : '}' ;

// Unsigned: a leading sign is a unary operator, so `OFFSET -1` fails at the '-'.
NUMBER
    : '0' [xX] HEX_DIGIT+
    | DIGIT+ ('.' DIGIT*)? EXPONENT?
    | '.' DIGIT+ EXPONENT?
    ;

// The parser decodes the escapes: \' \" \\ \/ \b \f \n \r \t \uXXXX.
STRING
    : '"' (ESCAPE_SEQUENCE | ~["\\])* '"'
    | '\'' (ESCAPE_SEQUENCE | ~['\\])* '\''
    ;

IDENTIFIER : [a-zA-Z_] [a-zA-Z_0-9]* ;

PARAMETER : '@' [a-zA-Z_] [a-zA-Z_0-9]* ;

LINE_COMMENT : '--' ~[\r\n]* -> skip ;
WHITESPACE : [ \t\r\n\f\u000B]+ -> skip ;

// Anything else becomes a token the parser cannot use, so the error names it.
UNEXPECTED_CHARACTER : . ;

fragment ESCAPE_SEQUENCE : '\\' (['"\\/bfnrt] | 'u' HEX_DIGIT HEX_DIGIT HEX_DIGIT HEX_DIGIT) ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;
fragment DIGIT : [0-9] ;
fragment HEX_DIGIT : [0-9a-fA-F] ;

fragment A : [aA] ;
fragment B : [bB] ;
fragment C : [cC] ;
fragment D : [dD] ;
fragment E : [eE] ;
fragment F : [fF] ;
fragment G : [gG] ;
fragment H : [hH] ;
fragment I : [iI] ;
fragment J : [jJ] ;
fragment K : [kK] ;
fragment L : [lL] ;
fragment M : [mM] ;
fragment N : [nN] ;
fragment O : [oO] ;
fragment P : [pP] ;
fragment R : [rR] ;
fragment S : [sS] ;
fragment T : [tT] ;
fragment U : [uU] ;
fragment V : [vV] ;
fragment W : [wW] ;
fragment X : [xX] ;
fragment Y : [yY] ;
