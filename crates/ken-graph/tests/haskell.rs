//! Haskell modules end to end: `module A.B where` names the symbols; import
//! lists, qualified and whole-module imports resolve calls across files;
//! local `where` functions shadow global ones; an instance links its type to
//! its class, a type to the classes it derives and a class to its superclass.

mod common;

use common::check_edges;
use expect_test::expect;

#[test]
fn modules_imports_and_instances() {
    check_edges(
        r#"
//- src/Geo/Shape.hs
module Geo.Shape where

data Shape = Circle Double | Square Double
  deriving (Show, Named)

class Named a where
  nameOf :: a -> String

class Named a => HasArea a where
  areaOf :: a -> Double

instance HasArea Shape where
  areaOf (Circle r) = 3 * r * r
  areaOf (Square s) = s * s
//- src/Geo/Util.hs
module Geo.Util where

scaleBy :: Double -> Double -> Double
scaleBy k x = k * x

helper :: Double -> Double
helper = scaleBy 1
//- src/Geo/Report.hs
module Geo.Report (report, summary) where

import Geo.Shape (Shape (..), areaOf)
import qualified Geo.Util as U
import Geo.Util hiding (scaleBy)

report :: Shape -> Double
report s = U.scaleBy 2 (areaOf s) + helper (areaOf (Circle 1))

summary :: [Shape] -> IO ()
summary shapes = do
  mapM_ (print . report) shapes
  done
  where
    helper = length
    done = pure ()
"#,
        expect![[r#"
            Geo.Report -imports-> Geo.Shape
            Geo.Report -imports-> Geo.Shape.Shape
            Geo.Report -imports-> Geo.Util
            Geo.Report.report -calls-> Geo.Util.helper
            Geo.Report.report -calls-> Geo.Util.scaleBy
            Geo.Report.summary -calls-> Geo.Report.report
            Geo.Shape.HasArea -derived_class_of-> Geo.Shape.Named
            Geo.Shape.Shape -derived_class_of-> Geo.Shape.HasArea
            Geo.Shape.Shape -derived_class_of-> Geo.Shape.Named
            Geo.Shape.Shape.Circle -construct-> Geo.Shape.Shape
            Geo.Shape.Shape.Square -construct-> Geo.Shape.Shape
            Geo.Shape.Shape.areaOf -overrides-> Geo.Shape.HasArea.areaOf
            Geo.Util.helper -calls-> Geo.Util.scaleBy
            unresolved:
            Geo.Report.report -calls-> ?areaOf
            Geo.Report.report -instantiates-> ?Circle
            Geo.Report.summary -calls-> ?done
            Geo.Report.summary -calls-> ?mapM_
            Geo.Report.summary -calls-> ?print
            Geo.Report.summary -calls-> ?pure
            Geo.Shape.Shape -derived_class_of-> ?Show
        "#]],
    );
}
